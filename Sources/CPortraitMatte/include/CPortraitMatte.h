#ifndef CPORTRAITMATTE_H
#define CPORTRAITMATTE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// MODNet, a portrait matting network, run by OpenCV's DNN module on the CPU. One handle holds up to two
/// copies of the network (the ONNX files' bytes, 26 MB each), each with a fixed input shape, as
/// `scripts/install-models.sh` writes them: a portrait one, 512 wide × 672 high, and a landscape one,
/// 672 × 512. A photo goes to the one of its
/// orientation: stretched to fill it when its aspect ratio is within 5 % of the input's (as MODNet's own
/// inference stretches: a 3:4 or 4:3 photo), else scaled to fit and letterboxed. The matte comes back at the
/// size the photo was scaled to, letterbox cut off; it covers the whole photo.
typedef struct pm_matter pm_matter;

/// Loads the networks. Either path may be NULL (not both): photos of that orientation then go to the other
/// network, letterboxed further. `threads` caps OpenCV's worker threads (≤ 0: 2). It is a process-wide
/// setting of OpenCV's, made here because nothing else in the process uses OpenCV. `keepNetworks` (non-zero)
/// keeps each network once it has run, with its layer outputs (about 350 MB each), which makes later mattes
/// about 0.25 s faster; 0 builds a network per matte from the file's bytes and frees it after.
/// Returns NULL and writes a message into `error` (`errorSize` bytes, NUL-terminated) when a file is
/// missing, not an ONNX network OpenCV can load, or made for the other shape.
pm_matter *pm_open(const char *portraitModelPath, const char *landscapeModelPath, int threads, int keepNetworks,
                   char *error, size_t errorSize);

/// Frees the networks. NULL is allowed.
void pm_close(pm_matter *matter);

/// The size, in pixels, of the matte `pm_matte` returns for a photo of `width` × `height` (at most 512 × 672 =
/// 344,064 floats). Returns 0, or −1 when the size is not positive.
int pm_matte_size(const pm_matter *matter, int width, int height, int *outWidth, int *outHeight);

/// The subject matte of an 8-bit photo: `width` × `height` pixels of `channels` bytes (3: R, G, B; 4: R, G,
/// B and a fourth byte that is ignored), rows `stride` bytes apart. Writes `pm_matte_size`'s
/// `outWidth` × `outHeight` alphas in 0…1, row by row with no padding, into `alpha`, which holds
/// `capacity` floats. Safe to call from several threads: calls on one handle take turns for the network
/// (the scaling before it runs at once). Returns 0, or −1 with a message in `error`.
int pm_matte(pm_matter *matter, const uint8_t *pixels, int width, int height, int stride, int channels,
             float *alpha, size_t capacity, int *outWidth, int *outHeight, char *error, size_t errorSize);

#ifdef __cplusplus
}
#endif

#endif
