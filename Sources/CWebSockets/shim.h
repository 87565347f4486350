#pragma once
#include <libwebsockets.h>

/// LWS_PRE is a computed macro Swift cannot import: the bytes lws needs before a payload for the frame header.
static const size_t CWS_PRE = LWS_PRE;
