#pragma once
#include <libwebsockets.h>

/// LWS_PRE is a computed macro Swift cannot import: the bytes lws needs before a payload for the frame header.
static const size_t CWS_PRE = LWS_PRE;

/// SSL_set_tlsext_host_name is a macro over SSL_ctrl that Swift cannot call: sets the SNI name a TLS client sends.
static inline long CWS_SSL_set_sni(SSL *ssl, const char *name) { return SSL_set_tlsext_host_name(ssl, (char *)name); }
