/*
 * Writes a one-component lossless JPEG (SOF3) with libjpeg-turbo 3's libjpeg API, for the fixtures that
 * need what imagecodecs.jpeg8_encode does not expose: a point transform and a restart interval.
 *
 * Built by lossless_jpeg.py against the libjpeg-turbo 3 that the imagecodecs wheel ships (libjpeg v8 ABI),
 * with Debian's jpeglib.h (its v8 fields selected by a jconfig.h that says JPEG_LIB_VERSION 80).
 *
 * usage: ljpeg_encode IN.u16 WIDTH HEIGHT PRECISION PREDICTOR POINT_TRANSFORM RESTART_MCUS RESTART_ROWS OUT.jpg
 * IN.u16 holds WIDTH*HEIGHT little-endian uint16 samples below 2^PRECISION.
 */
#include <stdio.h>
#include <stdlib.h>
#include <jpeglib.h>

/* libjpeg-turbo 3 additions, absent from the 2.1 header. */
typedef short J12SAMPLE;
typedef unsigned short J16SAMPLE;
extern void jpeg_enable_lossless(j_compress_ptr cinfo, int predictor_selection_value, int point_transform);
extern JDIMENSION jpeg12_write_scanlines(j_compress_ptr cinfo, J12SAMPLE **scanlines, JDIMENSION num_lines);
extern JDIMENSION jpeg16_write_scanlines(j_compress_ptr cinfo, J16SAMPLE **scanlines, JDIMENSION num_lines);

int main(int argc, char **argv) {
  if (argc != 10) { fprintf(stderr, "usage: see the header of ljpeg_encode.c\n"); return 2; }
  int width = atoi(argv[2]), height = atoi(argv[3]), precision = atoi(argv[4]);
  int predictor = atoi(argv[5]), pt = atoi(argv[6]), restart_mcus = atoi(argv[7]), restart_rows = atoi(argv[8]);
  FILE *in = fopen(argv[1], "rb");
  if (!in) { perror(argv[1]); return 1; }
  unsigned short *samples = malloc((size_t)width * height * 2);
  for (long i = 0; i < (long)width * height; i++) {
    int lo = fgetc(in), hi = fgetc(in);
    if (hi < 0) { fprintf(stderr, "short input\n"); return 1; }
    samples[i] = (unsigned short)(lo | hi << 8);
  }
  fclose(in);

  struct jpeg_compress_struct cinfo;
  struct jpeg_error_mgr jerr;
  cinfo.err = jpeg_std_error(&jerr);
  jpeg_create_compress(&cinfo);
  FILE *out = fopen(argv[9], "wb");
  if (!out) { perror(argv[9]); return 1; }
  jpeg_stdio_dest(&cinfo, out);
  cinfo.image_width = width;
  cinfo.image_height = height;
  cinfo.input_components = 1;
  cinfo.in_color_space = JCS_GRAYSCALE;
  cinfo.data_precision = precision;
  jpeg_set_defaults(&cinfo);
  cinfo.data_precision = precision;
  jpeg_enable_lossless(&cinfo, predictor, pt);
  cinfo.restart_interval = restart_mcus;
  cinfo.restart_in_rows = restart_rows;
  jpeg_start_compress(&cinfo, TRUE);
  for (int y = 0; y < height; y++) {
    unsigned short *row = samples + (long)y * width;
    if (precision <= 8) {
      JSAMPLE line[65536];
      for (int x = 0; x < width; x++) line[x] = (JSAMPLE)row[x];
      JSAMPROW rows[1] = { line };
      jpeg_write_scanlines(&cinfo, rows, 1);
    } else if (precision <= 12) {
      J12SAMPLE line[65536];
      for (int x = 0; x < width; x++) line[x] = (J12SAMPLE)row[x];
      J12SAMPLE *rows[1] = { line };
      jpeg12_write_scanlines(&cinfo, rows, 1);
    } else {
      J16SAMPLE *rows[1] = { row };
      jpeg16_write_scanlines(&cinfo, rows, 1);
    }
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  fclose(out);
  free(samples);
  return 0;
}
