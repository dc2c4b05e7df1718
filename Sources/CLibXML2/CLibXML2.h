// libxml2, found through pkg-config "libxml-2.0": Debian's libxml2-dev, Homebrew's libxml2. Only
// CMockCDNXML.c includes it; no libxml2 type reaches Swift.
#include <libxml/parser.h>
