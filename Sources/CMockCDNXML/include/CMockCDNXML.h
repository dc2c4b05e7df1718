// CMockCDNXML: libxml2's push parser behind a C API with no libxml2 type in it, for the small XML documents
// MockCDN reads (what S3 clients send: DeleteObjects, CompleteMultipartUpload, a notification configuration;
// and what an S3 store answers).
//
// Why a shim: libxml2's SAX interface is a struct of some thirty callbacks over `xmlChar` pointers, and its
// parser context holds the switches that decide whether a DTD is read and entities are expanded. Here the
// handler is set once, with only the callbacks a plain document needs, and the refusals are decided where
// libxml2 reports what it met: a DOCTYPE (so no entity can ever be declared, let alone expanded), nesting
// past the caller's bound, an encoding other than UTF-8, and any error libxml2 finds (bytes that are not
// UTF-8, an undeclared entity, a tag left open). Comments and processing instructions have no callback, so
// they are skipped; CDATA sections arrive as text. What Swift sees is a flat list of events in a byte buffer,
// which it turns into a tree: one call per chunk of input, no callback into Swift.
#ifndef CMOCKCDN_XML_H
#define CMOCKCDN_XML_H

#include <stddef.h>
#include <stdint.h>

#pragma clang assume_nonnull begin

/// A document being read; used by one thread at a time.
typedef struct CMockCDNXMLReader CMockCDNXMLReader;

/// What a call to `CMockCDNXML_reader_feed` found; anything but `CMOCKCDN_XML_OK` ends the document.
typedef enum {
    CMOCKCDN_XML_OK = 0,
    /// Not well-formed XML (libxml2's error code is `CMockCDNXML_reader_error_code`).
    CMOCKCDN_XML_MALFORMED = 1,
    /// A `<!DOCTYPE`: MockCDN reads no DTD, so no entity is ever declared.
    CMOCKCDN_XML_DOCTYPE = 2,
    /// An element deeper than the reader's bound.
    CMOCKCDN_XML_TOO_DEEP = 3,
    /// An encoding declaration or byte-order mark naming anything but UTF-8.
    CMOCKCDN_XML_NOT_UTF8 = 4,
    /// libxml2 could not allocate.
    CMOCKCDN_XML_NO_MEMORY = 5,
} CMockCDNXMLStatus;

/// The events in the buffer `CMockCDNXML_reader_events` gives: a kind byte, then for a start the namespace and
/// the local name, for text the bytes, each as a 32-bit length in host order followed by that many UTF-8
/// bytes (an element without a namespace has an empty one); an end has nothing after its kind.
enum {
    CMOCKCDN_XML_EVENT_START = 1,
    CMOCKCDN_XML_EVENT_END = 2,
    CMOCKCDN_XML_EVENT_TEXT = 3,
};

/// A reader for one document, refusing elements nested deeper than `maximum_depth` (the root is depth 1).
///
/// - Returns: the reader, or NULL when memory is short.
CMockCDNXMLReader *_Nullable CMockCDNXML_reader_new(unsigned maximum_depth);

/// Parses the next `length` bytes of the document; `last` is nonzero for the final call (which may have no
/// bytes), when libxml2 checks that the document ended well.
///
/// - Returns: a `CMockCDNXMLStatus`. Once it is not `CMOCKCDN_XML_OK`, later calls return it again.
int CMockCDNXML_reader_feed(CMockCDNXMLReader *reader, const void *_Nullable bytes, size_t length, int last);

/// The events found since the last `CMockCDNXML_reader_clear_events`: sets `*events` and returns their length.
size_t CMockCDNXML_reader_events(const CMockCDNXMLReader *reader, const uint8_t *_Nullable *_Nonnull events);

/// Forgets the events already read, keeping the buffer's memory for the next chunk's.
void CMockCDNXML_reader_clear_events(CMockCDNXMLReader *reader);

/// libxml2's error code (`xmlParserErrors`) of the first error when the status is `CMOCKCDN_XML_MALFORMED`,
/// else 0; and the line it was found on in `*line`.
int CMockCDNXML_reader_error_code(const CMockCDNXMLReader *reader, int *line);

void CMockCDNXML_reader_free(CMockCDNXMLReader *_Nullable reader);

#pragma clang assume_nonnull end

#endif
