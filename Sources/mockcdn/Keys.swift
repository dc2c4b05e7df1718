import ArgumentParser
import MockCDNServer

/// `mockcdn keys`: print (or export) an app's CloudFront key pairs.
struct Keys: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print an app's CloudFront key pairs (id, status, public PEM), or export them as PEM files.",
        discussion: """
            Examples:
              mockcdn keys
              mockcdn keys --app acme --config mockcdn.yaml --export keys/
            """
    )

    @Option(help: "Also write {id}.public.pem and, where known, {id}.private.pem into this folder.")
    var export: String?

    @OptionGroup var appOptions: AppOptions

    func run() throws {
        let app = try self.appOptions.loadApp()
        do {
            print(try CommandLineTools.keys(app: app, exportTo: self.export))
        } catch {
            throw ValidationError("\(error)")
        }
    }
}
