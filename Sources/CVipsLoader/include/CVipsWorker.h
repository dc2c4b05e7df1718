// CVipsWorker: libvips in a child process, `mockcdn-imaging`.
//
// Why a child process: a server that resizes in process keeps libvips and its hundred libraries mapped (some
// 25 MiB of RSS) and their data for the rest of its life, and a decoder crash on hostile bytes takes the
// server down with it. The worker holds them instead: it serves one request at a time over a socket, quits
// when it has had none for a while (giving all of it back), and a crash or a kill ends only the request it
// was serving.
//
// The wire (one stream socket, both ends on the same machine, so native byte order): the server writes a
// CVipsWorkerRequest and `length` bytes of source; the worker answers a CVipsWorkerResponse and `length`
// bytes: the encoded output when `status` is CVipsWorkerOK, else an error message. Functions return 1 on
// success and 0 on failure, with `*error` (to free with `free`) saying why.
#ifndef CVIPSWORKER_H
#define CVIPSWORKER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "CVipsShim.h"

#pragma clang assume_nonnull begin

/// The first field of every message, so that a stray writer is noticed at once.
#define CVIPSWORKER_MAGIC 0x4d434456u

/// The most source bytes one request may carry; a longer request ends the worker.
#define CVIPSWORKER_MAXIMUM_LENGTH ((uint64_t)1 << 31)

typedef enum {
    /// Starts libvips and answers whether it could (the server asks once, before its first image operation).
    CVipsWorkerStart = 0,
    /// CVipsShim_probe of the source.
    CVipsWorkerProbe = 1,
    /// CVipsShim_resize of the source.
    CVipsWorkerResize = 2,
} CVipsWorkerOperation;

typedef enum {
    CVipsWorkerOK = 1,
    /// libvips refused or failed: the message is its error.
    CVipsWorkerFailed = 0,
    /// The libvips module cannot be loaded or started: the message says what is missing.
    CVipsWorkerUnsupported = -1,
} CVipsWorkerStatus;

typedef struct {
    uint32_t magic;
    /// A CVipsWorkerOperation.
    int32_t operation;
    /// The CVipsShim_resize arguments (a probe reads `source` only).
    int32_t source;
    int32_t width;
    int32_t height;
    int32_t mode;
    int32_t anchor;
    int32_t format;
    int32_t quality;
    int32_t all_pages;
    /// How long the render may take before libvips stops it.
    double seconds;
    /// Bytes of source that follow.
    uint64_t length;
} CVipsWorkerRequest;

typedef struct {
    uint32_t magic;
    /// A CVipsWorkerStatus.
    int32_t status;
    /// A probe's header.
    CVipsShimHeader header;
    /// Bytes that follow: the output, or the error message.
    uint64_t length;
} CVipsWorkerResponse;

/// Starts `executable` with `argument` as its one argument, its standard input and output one end of a new
/// socket (the other end, close-on-exec, in `*socket`) and its standard error /dev/null; the child's pid is
/// in `*pid`.
int CVipsWorker_spawn(
    const char *executable, const char *argument, pid_t *pid, int *socket, char *_Nullable *_Nonnull error);

/// Writes `request` and its `request->length` bytes from `data`, then reads the response and its bytes into
/// `*out` (to free with `free`; NULL when there are none). Blocks. Fails when the worker has gone (the
/// socket closed) or broke the wire.
int CVipsWorker_exchange(
    int socket, const CVipsWorkerRequest *request, const void *_Nullable data, CVipsWorkerResponse *response,
    void *_Nullable *_Nonnull out, char *_Nullable *_Nonnull error);

/// Waits for the child `pid` to end: 1 with `*status` as waitpid gives it, 0 when it cannot be waited for.
int CVipsWorker_wait(pid_t pid, int *status);

/// The exit status of a waitpid status, or -1 when the child did not exit by itself.
int CVipsWorker_exit_status(int status);

/// The signal that ended a child, or 0 when it exited by itself.
int CVipsWorker_signal(int status);

/// The worker's loop: answers requests on standard input and output until it reads the end of its input,
/// or `idle_seconds` pass with no request (exit status 0); a broken request ends it with status 2.
int CVipsWorker_serve(int idle_seconds);

#pragma clang assume_nonnull end

#endif
