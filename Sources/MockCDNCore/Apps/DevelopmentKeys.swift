/// The demo app's CloudFront key pair, published on purpose (see Fixtures/keys/README.md) so that links are
/// reproducible and anyone can sign with AWS tooling. Identical to the PEM files in Fixtures/keys/ (a test
/// checks); embedded so the binary needs no files to start.
enum DevelopmentKeys {
    static let demoKeyPairID = "K2JCJMDEHXQW5F"

    static let demoPrivateKeyPEM = """
        -----BEGIN RSA PRIVATE KEY-----
        MIIEowIBAAKCAQEAppZZYJxLCRKuZF7Vo0FTdXtwLkIg+w+3RcONIyNTw51UXhP4
        INk/gKJ3yPpxw2LxLcu+AedQ59RkbRkZ+ottMmW9vdzLdpBeGF/eVF3RNaJmLhT1
        mBGYnWbIMo8j120qAKRCtmt+oRgtNsSzS0RHLfNXcvvcLjE5/ngdlX62jZ7c7sDL
        0shtW2skG3FoVJ5eO+5GoN5Nv6PxV0rKf3aU4zLDfI3j25OOmfXWA851Lu+zPiBc
        1N+5y92HeFfe2IVm2hRe1aE0Rw0E2FoZdtdeCfxzdfBjj0fNeSrH73io34IgFoZE
        1mXXB4zgfFgmm4ZC7/wfhHFmc7AK+3Iuu1ASUQIDAQABAoIBAA6q07U+JZwnpSuo
        ruo4HPtN0j98ao94X4RYtqNGn8AsKMq8ut7XifAPPfk31c7kdgQ4eWMNBRJYYLw7
        Vs54urVSgG2IVHC8vtAqFrb6aKpugU0i4snQGM4ZB9ztvfPghG94hvgtSEGyUX7O
        PFQO765zy7oPw1/czTSiykYImVWoJ7LMZDZM1LALKPYXW5MCZRc/XbwWKAmpA7u2
        Zt/9nT9k5bnAz/Yp7Wwq2CMkyyvr3FJsOWrsLYdHLH6vxUvUvcB3D/TY4hvttSAm
        jQva0nvBG9P7onMinS1QSrmEBp+0khH6OSoFHScYVigjrzH8zSvEUxhbHy26Iopj
        Ylw8bFECgYEA6zO5MLbTXYzrdOY3avDQVued+qEuJFPdGXQZMVHU9jZcVhFU/nrg
        uLoNEWOSpirSK95Gc+0cyB52yTDmd6Gl8EkzlRY2McGSHYY31yejU60qf/o4kGcB
        txss7eAg2fbsZ/PHwiVBLnmrQ0xrjg7a9V/vePqi39FZKyjoFREfbVkCgYEAtVFk
        N+kZ9pn85QuepdRRKyjFVXY5+kpx4ISALUZo8YQouy9Tv/IFzmI+ROBBj+s2uoxs
        5lYxrrh+rW0nKIV5zpmgVu8QBKXxC+gPJqP92BfT43DqrohgsVx5NVbh4OkhewUm
        hOZCL+Sa8I/nqA8GtgeA8yCYboc31wD1zwO31bkCgYARgo1D6ih8K3SQBF+Vz43D
        GoUxVnSH8dJhBbqmaFAxcESZh7rLIzy9o+Q7Ki2Nv1xcNbULBlkBMPto6QIPX/Jp
        nBmB/OBV/fIxzn8zvlizbw3d7zPs1C5Vgmlq4Cex8mcRKh3x/zIGErrETNko/0Qf
        xl+eoxIjFYPM6cO1ZcvwKQKBgGoIJ9g+W62HTYnQKr2FFNZtaEDa+3qv0DpgoehY
        FYSvKXaVbZ+A8/5GG24ByrVT8tRSzFhCrZkkUQgwHccnjxzPYCGWecKOHBE/aqTJ
        H+gfvwxxevwHyqvNjSAxJ7R0AN1FHMp5MNl7EVR+gxUXfHA0oScMt7djIbd820Jt
        RTMZAoGBANUp/PBwpN2grj5gIo+VMdB4wJJTfpaZAFtQPAh8E5R5cgNSnPngCjoy
        b9cse3yVL5dXh9wn6jlmcqapvqVPjXLyrBAYyzuj02jRgqT5W9gudIzsaRnqDijE
        BSoxIzT5grQ7NzR/DFh/yHiJJYbdDmvFAikWv+NdYN65TZxOLDEH
        -----END RSA PRIVATE KEY-----
        """

    static let demoPublicKeyPEM = """
        -----BEGIN PUBLIC KEY-----
        MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAppZZYJxLCRKuZF7Vo0FT
        dXtwLkIg+w+3RcONIyNTw51UXhP4INk/gKJ3yPpxw2LxLcu+AedQ59RkbRkZ+ott
        MmW9vdzLdpBeGF/eVF3RNaJmLhT1mBGYnWbIMo8j120qAKRCtmt+oRgtNsSzS0RH
        LfNXcvvcLjE5/ngdlX62jZ7c7sDL0shtW2skG3FoVJ5eO+5GoN5Nv6PxV0rKf3aU
        4zLDfI3j25OOmfXWA851Lu+zPiBc1N+5y92HeFfe2IVm2hRe1aE0Rw0E2FoZdtde
        CfxzdfBjj0fNeSrH73io34IgFoZE1mXXB4zgfFgmm4ZC7/wfhHFmc7AK+3Iuu1AS
        UQIDAQAB
        -----END PUBLIC KEY-----
        """
}
