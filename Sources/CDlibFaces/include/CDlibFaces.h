#ifndef CDLIBFACES_H
#define CDLIBFACES_H

#ifdef __cplusplus
extern "C" {
#endif

/// One face dlib's frontal face detector found: a box in the pixels of the grey image it was given, and
/// the detector's confidence (its SVM score; 0 is its own default cut).
typedef struct {
    int x, y, width, height;
    double score;
} dbf_face;

/// Finds frontal faces in an 8-bit grey image (`width` × `height`, rows `stride` bytes apart) with dlib's
/// HOG detector (no model file: it is compiled into dlib). Writes at most `capacity` faces, strongest first,
/// and returns how many it found (which may exceed `capacity`), or −1 when dlib failed.
int dbf_detect_faces(const unsigned char *grey, int width, int height, int stride, double threshold,
                     dbf_face *faces, int capacity);

#ifdef __cplusplus
}
#endif

#endif
