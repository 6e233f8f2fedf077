import Foundation

/// A file argument a command reads whole: a path, or `-` for standard input.
enum InputFile {
    /// The bytes of `file` (`-`: standard input, to its end); a ``CLIError`` naming the file when it cannot be read.
    static func bytes(_ file: String) throws -> [UInt8] {
        if file == "-" { return Array(FileHandle.standardInput.readDataToEndOfFile()) }
        guard let data = FileManager.default.contents(atPath: file) else {
            throw CLIError("cannot read \(file): no such file or not readable")
        }
        return Array(data)
    }
}
