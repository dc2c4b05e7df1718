import MockCDNCore
import NIOSSL

extension ServerConfiguration {
    /// The HTTPS set-up of `--tls-certificate` and `--tls-key`: nil for plain HTTP.
    ///
    /// - Returns: the server's TLS configuration, or nil when neither file is named.
    /// - Throws: `MockCDNError.invalidConfiguration` when only one is named, or a file is not PEM.
    func tlsConfiguration() throws -> TLSConfiguration? {
        switch (self.tlsCertificatePath, self.tlsKeyPath) {
        case (nil, nil):
            return nil
        case (let certificate?, let key?):
            do {
                let chain = try NIOSSLCertificate.fromPEMFile(certificate).map {
                    NIOSSLCertificateSource.certificate($0)
                }
                let privateKey = try NIOSSLPrivateKey(file: key, format: .pem)
                return TLSConfiguration.makeServerConfiguration(
                    certificateChain: chain,
                    privateKey: .privateKey(privateKey)
                )
            } catch {
                throw MockCDNError.invalidConfiguration(
                    "--tls-certificate and --tls-key must be readable PEM files (\(certificate), \(key)): \(error)"
                )
            }
        default:
            throw MockCDNError.invalidConfiguration("--tls-certificate and --tls-key go together: give both or neither")
        }
    }
}
