// libxml2's push parser behind CMockCDNXML.h. Every libxml2 type stays in this file.
#include "CMockCDNXML.h"

#include <libxml/parser.h>
#include <libxml/xmlIO.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/// Where the bytes fed so far end, as far as the bound on start tags needs to know: in text, or inside which
/// kind of markup. It only tells markup from text (a `<` in a comment or a CDATA section opens no tag); what
/// is well-formed is libxml2's to say.
enum markup {
    MARKUP_TEXT,
    MARKUP_OPEN,        // after `<`
    MARKUP_BANG,        // after `<!`
    MARKUP_BANG_DASH,   // after `<!-`
    MARKUP_COMMENT,     // after `<!--`, until `-->`
    MARKUP_CDATA_START, // after `<![`, until the `[` that ends `CDATA[`
    MARKUP_CDATA,       // until `]]>`
    MARKUP_PI,          // after `<?`, until `?>`
    MARKUP_START_TAG,   // after `<` and a name's first byte, until `>` outside quotes
    MARKUP_OTHER,       // an end tag or a declaration, until `>` outside quotes
};

struct CMockCDNXMLReader {
    xmlParserCtxtPtr context;
    enum markup markup;
    /// In a tag: the quote an attribute value was opened with, or 0.
    uint8_t quote;
    /// In a comment or CDATA section: how many `-` or `]` in a row; in a processing instruction, a `?`.
    unsigned run;
    unsigned attributes;
    size_t tag_bytes;
    unsigned maximum_depth;
    unsigned depth;
    int status;
    int error_code;
    int error_line;
    uint8_t *events;
    size_t length;
    size_t capacity;
};

// xmlInitParser is not safe to call from two threads at once, and readers start on any thread of the pool.
static pthread_once_t initialised = PTHREAD_ONCE_INIT;
static void initialise(void) { xmlInitParser(); }

/// Ends the document with `status` (the first reason wins); libxml2 stops at its next check.
static void stop(CMockCDNXMLReader *reader, int status) {
    if (reader->status == CMOCKCDN_XML_OK) reader->status = status;
    xmlStopParser(reader->context);
}

/// Makes room for `more` bytes of events; 0 (and the reader stopped) when memory is short.
static int reserve(CMockCDNXMLReader *reader, size_t more) {
    if (reader->capacity - reader->length >= more) return 1;
    size_t capacity = reader->capacity == 0 ? 4096 : reader->capacity;
    while (capacity - reader->length < more) {
        if (capacity > SIZE_MAX / 2) {
            stop(reader, CMOCKCDN_XML_NO_MEMORY);
            return 0;
        }
        capacity *= 2;
    }
    uint8_t *grown = realloc(reader->events, capacity);
    if (grown == NULL) {
        stop(reader, CMOCKCDN_XML_NO_MEMORY);
        return 0;
    }
    reader->events = grown;
    reader->capacity = capacity;
    return 1;
}

static void append_kind(CMockCDNXMLReader *reader, uint8_t kind) { reader->events[reader->length++] = kind; }

static void append_string(CMockCDNXMLReader *reader, const xmlChar *text, size_t length) {
    uint32_t count = (uint32_t)length;
    memcpy(reader->events + reader->length, &count, sizeof count);
    reader->length += sizeof count;
    if (length > 0) memcpy(reader->events + reader->length, text, length);
    reader->length += length;
}

// MARK: - The bound on start tags

/// Follows `bytes` from where the last call left off and ends the document at a start tag past the bounds.
static void check_tags(CMockCDNXMLReader *reader, const uint8_t *bytes, size_t length) {
    for (size_t index = 0; index < length; index++) {
        uint8_t byte = bytes[index];
        switch (reader->markup) {
        case MARKUP_TEXT:
            if (byte == '<') reader->markup = MARKUP_OPEN;
            break;
        case MARKUP_OPEN:
            if (byte == '!') {
                reader->markup = MARKUP_BANG;
            } else if (byte == '?') {
                reader->markup = MARKUP_PI;
                reader->run = 0;
            } else if (byte == '/') {
                reader->markup = MARKUP_OTHER;
                reader->quote = 0;
            } else {
                reader->markup = MARKUP_START_TAG;
                reader->quote = 0;
                reader->attributes = 0;
                // `<` and the name's first byte (which, in a well-formed tag, is no quote, `=` or `>`).
                reader->tag_bytes = 2;
            }
            break;
        case MARKUP_BANG:
            reader->markup = byte == '-' ? MARKUP_BANG_DASH : byte == '[' ? MARKUP_CDATA_START : MARKUP_OTHER;
            reader->quote = 0;
            break;
        case MARKUP_BANG_DASH:
            reader->markup = byte == '-' ? MARKUP_COMMENT : MARKUP_OTHER;
            reader->run = 0;
            break;
        case MARKUP_COMMENT:
            if (byte == '>' && reader->run >= 2) reader->markup = MARKUP_TEXT;
            reader->run = byte == '-' ? reader->run + 1 : 0;
            break;
        case MARKUP_CDATA_START:
            if (byte == '[') {
                reader->markup = MARKUP_CDATA;
                reader->run = 0;
            }
            break;
        case MARKUP_CDATA:
            if (byte == '>' && reader->run >= 2) reader->markup = MARKUP_TEXT;
            reader->run = byte == ']' ? reader->run + 1 : 0;
            break;
        case MARKUP_PI:
            if (byte == '>' && reader->run) reader->markup = MARKUP_TEXT;
            reader->run = byte == '?';
            break;
        case MARKUP_START_TAG:
            if (++reader->tag_bytes > CMOCKCDN_XML_MAXIMUM_TAG_BYTES) {
                stop(reader, CMOCKCDN_XML_TAG_TOO_LARGE);
                return;
            }
            if (reader->quote != 0) {
                if (byte == reader->quote) reader->quote = 0;
            } else if (byte == '"' || byte == '\'') {
                reader->quote = byte;
            } else if (byte == '=') {
                if (++reader->attributes > CMOCKCDN_XML_MAXIMUM_ATTRIBUTES) {
                    stop(reader, CMOCKCDN_XML_TAG_TOO_LARGE);
                    return;
                }
            } else if (byte == '>') {
                reader->markup = MARKUP_TEXT;
            }
            break;
        case MARKUP_OTHER:
            if (reader->quote != 0) {
                if (byte == reader->quote) reader->quote = 0;
            } else if (byte == '"' || byte == '\'') {
                reader->quote = byte;
            } else if (byte == '>') {
                reader->markup = MARKUP_TEXT;
            }
            break;
        }
    }
}

// MARK: - SAX callbacks (user data: the reader)

/// The XML declaration has been read: a document in another encoding than UTF-8 (declared, or found by its
/// byte-order mark, so that libxml2 converts it) is refused, so the bytes of a text are always the bytes sent.
static void on_start_document(void *user) {
    CMockCDNXMLReader *reader = user;
    xmlParserCtxtPtr context = reader->context;
    const xmlChar *declared = context->encoding;
    if (declared == NULL && context->input != NULL) declared = context->input->encoding;
    int converting = context->input != NULL && context->input->buf != NULL && context->input->buf->encoder != NULL;
    int utf8 = declared == NULL || strcasecmp((const char *)declared, "UTF-8") == 0 ||
               strcasecmp((const char *)declared, "UTF8") == 0;
    if (converting || !utf8) stop(reader, CMOCKCDN_XML_NOT_UTF8);
}

static void on_doctype(void *user, const xmlChar *name, const xmlChar *external, const xmlChar *system) {
    (void)name, (void)external, (void)system;
    stop(user, CMOCKCDN_XML_DOCTYPE);
}

/// Unreachable while DOCTYPEs are refused (entities are declared only in one); set so that a change to that
/// rule cannot let a declaration through silently.
static void on_entity_declaration(
    void *user, const xmlChar *name, int type, const xmlChar *public, const xmlChar *system, xmlChar *content) {
    (void)name, (void)type, (void)public, (void)system, (void)content;
    stop(user, CMOCKCDN_XML_DOCTYPE);
}

static void on_start(
    void *user, const xmlChar *local, const xmlChar *prefix, const xmlChar *uri, int namespace_count,
    const xmlChar **namespaces, int attribute_count, int defaulted, const xmlChar **attributes) {
    (void)prefix, (void)namespace_count, (void)namespaces, (void)attribute_count, (void)defaulted, (void)attributes;
    CMockCDNXMLReader *reader = user;
    if (++reader->depth > reader->maximum_depth) {
        stop(reader, CMOCKCDN_XML_TOO_DEEP);
        return;
    }
    size_t uri_length = uri != NULL ? strlen((const char *)uri) : 0;
    size_t local_length = strlen((const char *)local);
    if (!reserve(reader, 1 + 2 * sizeof(uint32_t) + uri_length + local_length)) return;
    append_kind(reader, CMOCKCDN_XML_EVENT_START);
    append_string(reader, uri, uri_length);
    append_string(reader, local, local_length);
}

static void on_end(void *user, const xmlChar *local, const xmlChar *prefix, const xmlChar *uri) {
    (void)local, (void)prefix, (void)uri;
    CMockCDNXMLReader *reader = user;
    reader->depth -= 1;
    if (!reserve(reader, 1)) return;
    append_kind(reader, CMOCKCDN_XML_EVENT_END);
}

/// Character data, whitespace and CDATA sections alike: a CDATA section is text written without escapes.
static void on_text(void *user, const xmlChar *text, int length) {
    CMockCDNXMLReader *reader = user;
    if (length <= 0 || !reserve(reader, 1 + sizeof(uint32_t) + (size_t)length)) return;
    append_kind(reader, CMOCKCDN_XML_EVENT_TEXT);
    append_string(reader, text, (size_t)length);
}

/// Every error libxml2 reports comes here instead of its default, which prints to stderr. Warnings (a
/// namespace name that is not an absolute URI) pass; an error or a fatal error ends the document.
static void on_error(void *user, xmlErrorPtr error) {
    CMockCDNXMLReader *reader = user;
    if (error == NULL || error->level < XML_ERR_ERROR) return;
    if (reader->status == CMOCKCDN_XML_OK) {
        reader->error_code = error->code;
        reader->error_line = error->line;
    }
    stop(reader, CMOCKCDN_XML_MALFORMED);
}

// MARK: - API

CMockCDNXMLReader *CMockCDNXML_reader_new(unsigned maximum_depth) {
    pthread_once(&initialised, initialise);
    CMockCDNXMLReader *reader = calloc(1, sizeof *reader);
    if (reader == NULL) return NULL;
    reader->maximum_depth = maximum_depth;
    // Only these callbacks: no comment or processing-instruction callback (they are skipped), no getEntity
    // (only the five predefined entities and character references resolve), nothing that builds a tree.
    xmlSAXHandler handler;
    memset(&handler, 0, sizeof handler);
    handler.initialized = XML_SAX2_MAGIC;
    handler.startDocument = on_start_document;
    handler.internalSubset = on_doctype;
    handler.externalSubset = on_doctype;
    handler.entityDecl = on_entity_declaration;
    handler.startElementNs = on_start;
    handler.endElementNs = on_end;
    handler.characters = on_text;
    handler.ignorableWhitespace = on_text;
    handler.cdataBlock = on_text;
    handler.serror = on_error;
    reader->context = xmlCreatePushParserCtxt(&handler, reader, NULL, 0, NULL);
    if (reader->context == NULL) {
        free(reader);
        return NULL;
    }
    // Not XML_PARSE_NOENT (entities are not substituted), XML_PARSE_DTDLOAD or XML_PARSE_RECOVER; no network.
    xmlCtxtUseOptions(reader->context, XML_PARSE_NONET);
    return reader;
}

int CMockCDNXML_reader_feed(CMockCDNXMLReader *reader, const void *bytes, size_t length, int last) {
    if (reader->status == CMOCKCDN_XML_OK && length > 0) check_tags(reader, bytes, length);
    const char *cursor = bytes;
    // xmlParseChunk takes an int length.
    while (reader->status == CMOCKCDN_XML_OK) {
        size_t piece = length > (1u << 30) ? (1u << 30) : length;
        int final = last && piece == length;
        xmlParseChunk(reader->context, piece > 0 ? cursor : NULL, (int)piece, final);
        if (reader->status == CMOCKCDN_XML_OK && (!reader->context->wellFormed || !reader->context->nsWellFormed)) {
            reader->status = CMOCKCDN_XML_MALFORMED;
            reader->error_code = reader->context->errNo;
        }
        cursor += piece;
        length -= piece;
        if (length == 0) break;
    }
    return reader->status;
}

size_t CMockCDNXML_reader_events(const CMockCDNXMLReader *reader, const uint8_t **events) {
    *events = reader->events;
    return reader->length;
}

void CMockCDNXML_reader_clear_events(CMockCDNXMLReader *reader) { reader->length = 0; }

int CMockCDNXML_reader_error_code(const CMockCDNXMLReader *reader, int *line) {
    *line = reader->error_line;
    return reader->status == CMOCKCDN_XML_MALFORMED ? reader->error_code : 0;
}

void CMockCDNXML_reader_free(CMockCDNXMLReader *reader) {
    if (reader == NULL) return;
    xmlFreeParserCtxt(reader->context);
    free(reader->events);
    free(reader);
}
