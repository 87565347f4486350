// MODNet behind a C interface Swift can call, run by Debian's OpenCV 4.6 DNN module on the CPU. The ONNX files
// are the ones scripts/install-models.sh writes: each has a fixed input shape, because OpenCV 4.6 folds the
// graph's Shape nodes at load time and then refuses any other size (an Eltwise shape assertion), so a photo is
// scaled to the shape of its orientation (stretched a little, or letterboxed). No C++ exception crosses the C
// boundary: every entry point catches and copies the message into the caller's buffer.
//
// Memory against time: a cv::dnn::Net that has run once keeps every layer's output allocated, about 350 MB for
// MODNet at 512 × 672, for as long as it lives, and OpenCV 4.6 has no call that frees them. So by default the
// handle keeps only the files' bytes (26 MB each), and each matte parses a network from them, runs it and frees
// it: that costs about 0.25 s more per matte than a network kept from the last call (parsing is 25 ms; the rest
// is the first run's allocation), measured 1.63 s against 1.32 s (medians of 6, 2 threads, a busy machine).
// `keepNetworks` keeps each network after its first matte instead.
//
// Every OpenCV call runs on one thread of the process's own (`OpenCVThread`), which never ends: calls from every
// handle take turns there.
#include "CPortraitMatte.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <exception>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <thread>

#include <opencv2/core.hpp>
#include <opencv2/core/utils/logger.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>

namespace {

/// One ONNX file's bytes and the input size it was made for.
struct Model {
    std::vector<char> bytes;
    int width = 0, height = 0;
    mutable cv::dnn::Net kept;  // with `keepNetworks`, once it has run; only touched on the OpenCV thread
    bool loaded() const { return width > 0; }
};

/// `message` without the line break OpenCV's messages end with.
std::string trimmed(std::string message) {
    while (!message.empty() && std::isspace(static_cast<unsigned char>(message.back()))) message.pop_back();
    return message;
}

/// Copies `message` into the caller's buffer.
void setError(char *error, size_t errorSize, const std::string &message) {
    if (!error || errorSize == 0) return;
    std::snprintf(error, errorSize, "%s", trimmed(message).c_str());
}

/// A network parsed from `model`'s bytes, to run on the CPU with OpenCV's own layers.
cv::dnn::Net parse(const Model &model) {
    cv::dnn::Net net = cv::dnn::readNetFromONNX(model.bytes.data(), model.bytes.size());
    if (net.empty()) throw std::runtime_error("no network in the file");
    net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
    net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
    return net;
}

/// Reads the file and checks, by parsing it and inferring every layer's shape (no arithmetic, so no large
/// buffers), that it is a network for a 1 × 3 × `height` × `width` input: a file made for the other
/// orientation fails here.
void load(Model &model, const char *path, int width, int height) {
    std::ifstream file(path, std::ios::binary | std::ios::ate);
    if (!file) throw std::runtime_error("cannot open the file");
    const std::streamoff size = file.tellg();
    if (size <= 0) throw std::runtime_error("the file is empty");
    model.bytes.resize(size_t(size));
    file.seekg(0);
    if (!file.read(model.bytes.data(), size)) throw std::runtime_error("cannot read the file");
    cv::dnn::Net net = parse(model);
    std::vector<int> layers;
    std::vector<std::vector<cv::dnn::MatShape>> inShapes, outShapes;
    try {
        net.getLayersShapes(cv::dnn::MatShape{1, 3, height, width}, layers, inShapes, outShapes);
    } catch (const cv::Exception &e) {
        throw std::runtime_error("not a network for a 1x3x" + std::to_string(height) + "x" + std::to_string(width) +
                                 " input (" + trimmed(e.what()) + ")");
    }
    model.width = width;
    model.height = height;
}

/// The size the photo is scaled to inside `model`'s input. MODNet's own inference scales the short side to 512
/// and rounds the long side down to a multiple of 32, which stretches a photo by up to 5 % (a 3:4 photo:
/// 512 × 682.7 → 512 × 672); a photo within 5 % of the input's aspect ratio is stretched the same way to fill
/// it. Any other is scaled to fit, keeping its aspect ratio, and letterboxed.
cv::Size fitted(const Model &model, int width, int height) {
    const double mismatch = std::abs(std::log((double(width) / height) / (double(model.width) / model.height)));
    if (mismatch <= std::log(1.05)) return {model.width, model.height};
    const double scale = std::min(double(model.width) / width, double(model.height) / height);
    const int w = std::clamp(int(std::lround(width * scale)), 1, model.width);
    const int h = std::clamp(int(std::lround(height * scale)), 1, model.height);
    return {w, h};
}

}  // namespace

struct pm_matter {
    Model portrait;   // 512 wide, 672 high
    Model landscape;  // 672 wide, 512 high
    bool keepNetworks = false;

    /// The model for a photo of this shape: its own orientation's when loaded, else the other.
    const Model &modelFor(int width, int height) const {
        const bool useLandscape = width > height ? landscape.loaded() : !portrait.loaded();
        return useLandscape ? landscape : portrait;
    }
};

namespace {
// How much less the network's threads count than a frame's when both want a core (Linux nice value). A matte is
// about a second of both cores; at the same priority it took half the machine from every slider being dragged
// while it ran. At +10 a frame's thread gets about nine tenths of a contended core, and an idle machine runs the
// network as fast as before.
constexpr int kNetworkNiceness = 10;

/// The one thread that makes every OpenCV call in the process, at kNetworkNiceness, for as long as the process
/// lives. OpenCV's parallel loops are oneTBB's here, and a thread that has used TBB and then ends can crash TBB's
/// bookkeeping now and then (oneTBB issue #1758, a thread started for a parallel loop and ended): the Swift tests
/// died with SIGSEGV inside libtbb when each matte ran the network on a thread made for it, and libdispatch ends
/// its idle worker threads the same way. TBB's own workers are started from this thread, so they inherit its
/// niceness; the callers' threads (render workers, later running frames) keep theirs.
class OpenCVThread {
public:
    static OpenCVThread &shared() {
        static OpenCVThread *const thread = new OpenCVThread();  // never destroyed: nothing may end its thread
        return *thread;
    }

    /// Runs `job` on the thread and waits for it; what it throws is thrown here.
    void run(const std::function<void()> &job) {
        Task task{&job};
        std::unique_lock<std::mutex> hold(lock);
        queue.push_back(&task);
        wake.notify_one();
        finished.wait(hold, [&] { return task.done; });
        hold.unlock();
        if (task.failure) std::rethrow_exception(task.failure);
    }

private:
    struct Task {
        const std::function<void()> *job;
        bool done = false;
        std::exception_ptr failure;
    };

    std::mutex lock;
    std::condition_variable wake, finished;
    std::deque<Task *> queue;

    OpenCVThread() { std::thread([this] { serve(); }).detach(); }

    void serve() {
        setpriority(PRIO_PROCESS, 0, kNetworkNiceness);  // on Linux, `who` 0 is the calling thread
        std::unique_lock<std::mutex> hold(lock);
        for (;;) {
            wake.wait(hold, [&] { return !queue.empty(); });
            Task *task = queue.front();
            queue.pop_front();
            hold.unlock();
            try {
                (*task->job)();
            } catch (...) {
                task->failure = std::current_exception();
            }
            hold.lock();
            task->done = true;
            finished.notify_all();
        }
    }
};
}  // namespace

extern "C" pm_matter *pm_open(const char *portraitModelPath, const char *landscapeModelPath, int threads,
                              int keepNetworks, char *error, size_t errorSize) {
    if (!portraitModelPath && !landscapeModelPath) {
        setError(error, errorSize, "no model path given");
        return nullptr;
    }
    const char *current = portraitModelPath ? portraitModelPath : landscapeModelPath;
    try {
        auto matter = std::make_unique<pm_matter>();
        OpenCVThread::shared().run([&] {
            // OpenCV's settings are process-wide; nothing else in the process uses OpenCV. Its own log would print
            // each failure a second time on stderr: the message goes back to the caller instead.
            cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT);
            cv::setNumThreads(threads > 0 ? threads : 2);
            matter->keepNetworks = keepNetworks != 0;
            if (portraitModelPath) load(matter->portrait, portraitModelPath, 512, 672);
            if (landscapeModelPath) {
                current = landscapeModelPath;
                load(matter->landscape, landscapeModelPath, 672, 512);
            }
        });
        return matter.release();
    } catch (const std::exception &e) {
        setError(error, errorSize, std::string("cannot load ") + current + ": " + e.what());
    } catch (...) {
        setError(error, errorSize, std::string("cannot load ") + current);
    }
    return nullptr;
}

extern "C" void pm_close(pm_matter *matter) {
    if (!matter) return;
    // A kept network is OpenCV's to free, on OpenCV's thread.
    try {
        OpenCVThread::shared().run([&] { delete matter; });
    } catch (...) {
    }
}

extern "C" int pm_matte_size(const pm_matter *matter, int width, int height, int *outWidth, int *outHeight) {
    if (!matter || width <= 0 || height <= 0) return -1;
    const cv::Size size = fitted(matter->modelFor(width, height), width, height);
    if (outWidth) *outWidth = size.width;
    if (outHeight) *outHeight = size.height;
    return 0;
}

namespace {
/// The matte of one photo (pm_matte's work, on the OpenCV thread).
int matte(const pm_matter &matter, const uint8_t *pixels, int width, int height, int stride, int channels, float *alpha,
          size_t capacity, int *outWidth, int *outHeight, char *error, size_t errorSize) {
    const Model &model = matter.modelFor(width, height);
    const cv::Size content = fitted(model, width, height);
    if (capacity < size_t(content.width) * size_t(content.height)) {
        setError(error, errorSize, "alpha buffer holds " + std::to_string(capacity) + " floats, needs " +
                                       std::to_string(content.width * content.height));
        return -1;
    }

    // Scale (an area average when shrinking, so no aliasing), drop a fourth byte, letterbox centred with the
    // edge pixels repeated (a black border cost 0.002 of IoU against Apple's matte), then
    // (x / 255 − 0.5) / 0.5 in R, G, B planes.
    const cv::Mat photo(height, width, CV_8UC(channels), const_cast<uint8_t *>(pixels), size_t(stride));
    cv::Mat scaled;
    const bool shrinking = content.width < width || content.height < height;
    cv::resize(photo, scaled, content, 0, 0, shrinking ? cv::INTER_AREA : cv::INTER_LINEAR);
    if (channels == 4) cv::cvtColor(scaled, scaled, cv::COLOR_RGBA2RGB);
    const int left = (model.width - content.width) / 2, top = (model.height - content.height) / 2;
    cv::Mat boxed;
    cv::copyMakeBorder(scaled, boxed, top, model.height - content.height - top, left,
                       model.width - content.width - left, cv::BORDER_REPLICATE);
    const cv::Mat blob = cv::dnn::blobFromImage(boxed, 1.0 / 127.5, cv::Size(), cv::Scalar(127.5, 127.5, 127.5),
                                                /*swapRB*/ false, /*crop*/ false, CV_32F);

    cv::dnn::Net net = !model.kept.empty() ? model.kept : parse(model);
    if (matter.keepNetworks) model.kept = net;
    net.setInput(blob);
    const cv::Mat out = net.forward();
    if (out.dims != 4 || out.size[0] != 1 || out.size[1] != 1 || out.size[2] != model.height ||
        out.size[3] != model.width || out.type() != CV_32F) {
        setError(error, errorSize, "the network's output is not 1x1x" + std::to_string(model.height) + "x" +
                                       std::to_string(model.width));
        return -1;
    }
    const float *plane = out.ptr<float>();
    for (int y = 0; y < content.height; ++y) {
        const float *row = plane + size_t(top + y) * model.width + left;
        float *dst = alpha + size_t(y) * content.width;
        for (int x = 0; x < content.width; ++x) dst[x] = std::clamp(row[x], 0.0f, 1.0f);
    }
    if (outWidth) *outWidth = content.width;
    if (outHeight) *outHeight = content.height;
    return 0;
}
}  // namespace

extern "C" int pm_matte(pm_matter *matter, const uint8_t *pixels, int width, int height, int stride, int channels,
                        float *alpha, size_t capacity, int *outWidth, int *outHeight, char *error, size_t errorSize) {
    if (!matter || !pixels || !alpha) {
        setError(error, errorSize, "null argument");
        return -1;
    }
    if (width <= 0 || height <= 0 || (channels != 3 && channels != 4) || stride < width * channels) {
        setError(error, errorSize, "bad image layout: " + std::to_string(width) + "x" + std::to_string(height) + ", " +
                                       std::to_string(channels) + " channels, stride " + std::to_string(stride));
        return -1;
    }
    try {
        int status = -1;
        OpenCVThread::shared().run([&] {
            status = matte(*matter, pixels, width, height, stride, channels, alpha, capacity, outWidth, outHeight, error,
                           errorSize);
        });
        return status;
    } catch (const std::exception &e) {
        setError(error, errorSize, e.what());
    } catch (...) {
        setError(error, errorSize, "unknown error in OpenCV");
    }
    return -1;
}
