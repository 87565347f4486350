#pragma once
// FFmpeg 5.1 (Debian libavformat-dev, libavcodec-dev, libswscale-dev, libavutil-dev): H.264 in MP4 for
// the Wiggle loop. Error codes are function-like macros Swift cannot import; these return their values.
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>
#include <errno.h>

static inline int cav_error_again(void) { return AVERROR(EAGAIN); }
static inline int cav_error_eof(void) { return AVERROR_EOF; }
