import ArgumentParser
import MockCDNServer

/// `mockcdn fixtures`: the folder of the samples MockCDN ships, wherever it is installed.
struct Fixtures: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the folder of the samples MockCDN ships: media, keys or config.",
        discussion: """
            media holds the files mockcdn serve preloads by default (fixtures/{name} of the default app);
            keys the demo app's published CloudFront key pair; config an example mockcdn.yaml. The folder is
            the install's (share/mockcdn next to bin/), else the checkout's Fixtures/ under the working
            directory.

            Examples:
              curl -F "file=@$(mockcdn fixtures)/sample.png" ...
              mockcdn serve --config "$(mockcdn fixtures config)/example.yaml"
            """
    )

    @Argument(help: "media, keys or config.")
    var samples: InstallLayout.Samples = .media

    func run() throws {
        guard let folder = InstallLayout.samples(self.samples) else {
            throw ValidationError(
                "no \(self.samples.rawValue) samples: neither an install's share/mockcdn nor a checkout's Fixtures/ "
                    + "(run it from the repository's root)"
            )
        }
        print(folder)
    }
}

extension InstallLayout.Samples: ExpressibleByArgument {}
