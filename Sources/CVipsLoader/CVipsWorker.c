// Both ends of CVipsWorker.h: the server's (spawn, exchange, wait) and the worker's loop (serve).
#if defined(__linux__) && !defined(_GNU_SOURCE)
// posix_spawn_file_actions_addclosefrom_np
#define _GNU_SOURCE
#endif
#include "CVipsWorker.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#if defined(MSG_NOSIGNAL)
#define CVIPSWORKER_SEND_FLAGS MSG_NOSIGNAL
#else
#define CVIPSWORKER_SEND_FLAGS 0
#endif

static int failed(char **error, const char *what) {
    char message[256];
    snprintf(message, sizeof(message), "%s: %s", what, strerror(errno));
    *error = strdup(message);
    return 0;
}

/// Writes all of `data`; 0 with errno set when the peer has gone. A socket never raises SIGPIPE here.
static int send_all(int socket, const void *data, size_t length) {
    const char *bytes = data;
    while (length > 0) {
        ssize_t sent = send(socket, bytes, length, CVIPSWORKER_SEND_FLAGS);
        if (sent < 0 && errno == EINTR) continue;
        if (sent <= 0) return 0;
        bytes += sent;
        length -= (size_t)sent;
    }
    return 1;
}

/// Reads exactly `length` bytes: 1 when read, 0 at the end of the stream before the first byte, -1 when the
/// stream ends or fails part way (errno is 0 for a short stream).
static int receive_all(int socket, void *data, size_t length) {
    char *bytes = data;
    size_t read_so_far = 0;
    while (read_so_far < length) {
        ssize_t got = recv(socket, bytes + read_so_far, length - read_so_far, 0);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) return -1;
        if (got == 0) {
            errno = 0;
            return read_so_far == 0 ? 0 : -1;
        }
        read_so_far += (size_t)got;
    }
    return 1;
}

int CVipsWorker_spawn(const char *executable, const char *argument, pid_t *pid, int *socket, char **error) {
    *error = NULL;
    int ends[2];
#if defined(SOCK_CLOEXEC)
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) return failed(error, "socketpair");
#else
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, ends) != 0) return failed(error, "socketpair");
    fcntl(ends[0], F_SETFD, FD_CLOEXEC);
    fcntl(ends[1], F_SETFD, FD_CLOEXEC);
#endif
#if defined(SO_NOSIGPIPE)
    int on = 1;
    setsockopt(ends[0], SOL_SOCKET, SO_NOSIGPIPE, &on, sizeof(on));
#endif
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    // dup2 clears close-on-exec on the copies; every other descriptor of the server stays closed to the child.
    posix_spawn_file_actions_adddup2(&actions, ends[1], 0);
    posix_spawn_file_actions_adddup2(&actions, ends[1], 1);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    // Nothing else of the server's passes to the child, close-on-exec or not: a client connection it held
    // open would outlive the server's close of it.
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);
#endif
    // Signals the server ignores (SIGPIPE) would stay ignored in the child; it starts with the defaults.
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t all;
    sigfillset(&all);
    posix_spawnattr_setsigdefault(&attributes, &all);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attributes, &none);
    short flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK;
#if defined(POSIX_SPAWN_CLOEXEC_DEFAULT)
    flags |= POSIX_SPAWN_CLOEXEC_DEFAULT;
#endif
    posix_spawnattr_setflags(&attributes, flags);
    char *arguments[] = {(char *)executable, (char *)argument, NULL};
    int status = posix_spawn(pid, executable, &actions, &attributes, arguments, environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    close(ends[1]);
    if (status != 0) {
        close(ends[0]);
        errno = status;
        return failed(error, executable);
    }
    *socket = ends[0];
    return 1;
}

int CVipsWorker_exchange(
    int socket, const CVipsWorkerRequest *request, const void *data, CVipsWorkerResponse *response, void **out,
    char **error) {
    *error = NULL;
    *out = NULL;
    if (!send_all(socket, request, sizeof(*request)) ||
        (request->length > 0 && !send_all(socket, data, (size_t)request->length))) {
        return failed(error, "the image worker stopped reading");
    }
    if (receive_all(socket, response, sizeof(*response)) != 1) {
        return failed(error, "the image worker closed its socket");
    }
    if (response->magic != CVIPSWORKER_MAGIC || response->length > CVIPSWORKER_MAXIMUM_LENGTH) {
        *error = strdup("the image worker broke the wire");
        return 0;
    }
    if (response->length == 0) return 1;
    void *bytes = malloc((size_t)response->length);
    if (bytes == NULL) return failed(error, "the image worker's answer");
    if (receive_all(socket, bytes, (size_t)response->length) != 1) {
        free(bytes);
        return failed(error, "the image worker closed its socket");
    }
    *out = bytes;
    return 1;
}

int CVipsWorker_wait(pid_t pid, int *status) {
    while (waitpid(pid, status, 0) < 0) {
        if (errno != EINTR) return 0;
    }
    return 1;
}

int CVipsWorker_exit_status(int status) {
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int CVipsWorker_signal(int status) {
    return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

// MARK: - The worker

/// Answers with `status` and `length` bytes; 0 when the server has gone.
static int answer(CVipsWorkerStatus status, const CVipsShimHeader *header, const void *bytes, size_t length) {
    CVipsWorkerResponse response;
    memset(&response, 0, sizeof(response));
    response.magic = CVIPSWORKER_MAGIC;
    response.status = status;
    if (header != NULL) response.header = *header;
    response.length = length;
    return send_all(1, &response, sizeof(response)) && (length == 0 || send_all(1, bytes, length));
}

/// Answers with `status` and the text of `message`.
static int answer_message(CVipsWorkerStatus status, const char *message) {
    return answer(status, NULL, message, strlen(message));
}

/// Answers a failure with the shim's `message` (freed here).
static int answer_failure(CVipsWorkerStatus status, char *message) {
    int sent = answer_message(status, message != NULL ? message : "vips failed");
    CVipsShim_free(message);
    return sent;
}

/// Runs one request on `source`; 0 when the answer could not be sent.
static int run(const CVipsWorkerRequest *request, const void *source) {
    char *error = NULL;
    if (!CVipsShim_load(&error) || !CVipsShim_initialize(&error)) {
        return answer_failure(CVipsWorkerUnsupported, error);
    }
    // Only the server writes here, but the shim indexes tables by these: an unknown one is refused.
    if (request->source < CVipsShimSourceJPEG || request->source > CVipsShimSourceBMP ||
        request->mode < CVipsShimModeFit || request->mode > CVipsShimModePad ||
        request->anchor < CVipsShimAnchorCenter || request->anchor > CVipsShimAnchorRight ||
        request->format < CVipsShimFormatJPEG || request->format > CVipsShimFormatGIF) {
        return answer_message(CVipsWorkerFailed, "a request field is out of range");
    }
    switch (request->operation) {
    case CVipsWorkerStart:
        return answer(CVipsWorkerOK, NULL, NULL, 0);
    case CVipsWorkerProbe: {
        CVipsShimHeader header;
        memset(&header, 0, sizeof(header));
        if (!CVipsShim_probe(source, (size_t)request->length, request->source, &header, &error)) {
            return answer_failure(CVipsWorkerFailed, error);
        }
        return answer(CVipsWorkerOK, &header, NULL, 0);
    }
    case CVipsWorkerResize: {
        CVipsShimControl *control = CVipsShim_control_new(request->seconds);
        void *output = NULL;
        size_t length = 0;
        int done = CVipsShim_resize(
            source, (size_t)request->length, request->source, request->width, request->height, request->mode,
            request->anchor, request->format, request->quality, request->all_pages, control, &output, &length,
            &error);
        CVipsShim_control_free(control);
        if (!done) return answer_failure(CVipsWorkerFailed, error);
        int sent = answer(CVipsWorkerOK, NULL, output, length);
        CVipsShim_free(output);
        return sent;
    }
    default:
        return answer_message(CVipsWorkerFailed, "unknown operation");
    }
}

int CVipsWorker_serve(int idle_seconds) {
    // A server that has gone is noticed by send's error, not by a signal.
    signal(SIGPIPE, SIG_IGN);
    for (;;) {
        struct pollfd input = {.fd = 0, .events = POLLIN, .revents = 0};
        int ready = poll(&input, 1, idle_seconds * 1000);
        if (ready < 0 && errno == EINTR) continue;
        if (ready < 0) return 2;
        if (ready == 0) return 0;
        CVipsWorkerRequest request;
        int got = receive_all(0, &request, sizeof(request));
        if (got == 0) return 0;
        if (got < 0 || request.magic != CVIPSWORKER_MAGIC || request.length > CVIPSWORKER_MAXIMUM_LENGTH) return 2;
        void *source = malloc(request.length > 0 ? (size_t)request.length : 1);
        if (source == NULL) return 2;
        if (request.length > 0 && receive_all(0, source, (size_t)request.length) != 1) {
            free(source);
            return 2;
        }
        int sent = run(&request, source);
        free(source);
        if (!sent) return 0;
    }
}
