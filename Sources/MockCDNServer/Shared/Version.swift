/// This build's version, as `mockcdn --version`, the index route and the release artifacts' names show it.
public let mockCDNVersion = "0.6.0"
