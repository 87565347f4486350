// dlib's frontal face detector behind a C interface Swift can call. Each thread has its own detector (one is
// not safe to share between threads), copied from one unpacked once: unpacking the model takes most of a
// second, and the render pool's threads come and go, so unpacking per thread cost 15 s of CPU in a room of
// twenty uploads (perf).
#include "CDlibFaces.h"

#include <algorithm>
#include <vector>

#include <dlib/image_processing/frontal_face_detector.h>

extern "C" int dbf_detect_faces(const unsigned char *grey, int width, int height, int stride, double threshold,
                                dbf_face *faces, int capacity) {
    if (!grey || width <= 0 || height <= 0 || stride < width) return -1;
    try {
        static const dlib::frontal_face_detector unpacked = dlib::get_frontal_face_detector();
        thread_local dlib::frontal_face_detector detector = unpacked;
        dlib::array2d<unsigned char> image(height, width);
        for (int y = 0; y < height; ++y) {
            const unsigned char *row = grey + static_cast<size_t>(y) * stride;
            std::copy(row, row + width, &image[y][0]);
        }
        std::vector<std::pair<double, dlib::rectangle>> found;
        detector(image, found, threshold);
        std::sort(found.begin(), found.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
        const int count = static_cast<int>(found.size());
        for (int i = 0; i < std::min(count, capacity); ++i) {
            const dlib::rectangle &r = found[i].second;
            faces[i] = dbf_face{static_cast<int>(r.left()), static_cast<int>(r.top()), static_cast<int>(r.width()),
                                static_cast<int>(r.height()), found[i].first};
        }
        return count;
    } catch (...) {
        return -1;
    }
}
