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
//
// One bound is checked on the bytes before libxml2 sees them: a start tag may have at most
// CMOCKCDN_XML_MAXIMUM_ATTRIBUTES attributes (namespace declarations included) and
// CMOCKCDN_XML_MAXIMUM_TAG_BYTES bytes. libxml2 2.9 (Debian 12's) checks a tag's attributes for duplicates
// pair by pair after reading them all, and re-reads a start tag from its start whenever a chunk ends inside
// it; one start tag of 1 MiB of attributes took 87 s, and 8 MiB of an attribute value full of `>` 2.2 s.
// Nothing S3 reads has more than a namespace declaration or two on a tag.
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
    /// A start tag with more attributes or bytes than the bounds below.
    CMOCKCDN_XML_TAG_TOO_LARGE = 6,
} CMockCDNXMLStatus;

/// The most attributes one start tag may have, namespace declarations included.
#define CMOCKCDN_XML_MAXIMUM_ATTRIBUTES 16
/// The most bytes one start tag may have, from its `<` to its `>`.
#define CMOCKCDN_XML_MAXIMUM_TAG_BYTES 4096

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
