import DepthbookDocument
import DepthbookEffects
import Foundation

/// Reads back the recipe an export carries (`depthbook:Notebook` in the primary XMP, see `RecipeXMP`), so
/// uploading an exported file can restore its notebook.
enum RecipeFromXMP {
    static func notebook(in xmp: String?) -> Notebook? {
        guard let xmp,
              let open = xmp.range(of: "<depthbook:Notebook>"),
              let close = xmp.range(of: "</depthbook:Notebook>", range: open.upperBound..<xmp.endIndex)
        else { return nil }
        let text = unescape(String(xmp[open.upperBound..<close.lowerBound]))
        return try? NotebookValidator().check(JSONDecoder().decode(Notebook.self, from: Data(text.utf8))).notebook
    }

    /// The XML character references an XMP writer may use.
    static func unescape(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var out = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            guard let semicolon = rest[amp...].firstIndex(of: ";"), rest.distance(from: amp, to: semicolon) <= 10 else {
                out += "&"
                rest = rest[rest.index(after: amp)...]
                continue
            }
            let entity = rest[rest.index(after: amp)..<semicolon]
            switch entity {
            case "amp": out += "&"
            case "lt": out += "<"
            case "gt": out += ">"
            case "quot": out += "\""
            case "apos": out += "'"
            default:
                let number = entity.hasPrefix("#x") ? UInt32(entity.dropFirst(2), radix: 16)
                    : entity.hasPrefix("#") ? UInt32(entity.dropFirst()) : nil
                if let number, let scalar = Unicode.Scalar(number) { out.unicodeScalars.append(scalar) } else { out += "&\(entity);" }
            }
            rest = rest[rest.index(after: semicolon)...]
        }
        return out + rest
    }
}
