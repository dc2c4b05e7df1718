// libcrypto (OpenSSL 3), found through pkg-config "libcrypto": Debian's libssl-dev, Homebrew's openssl@3.
#include <openssl/evp.h>
