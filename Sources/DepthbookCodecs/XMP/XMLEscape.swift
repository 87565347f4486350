/// Text made safe inside XML: the XMP packets Depthbook writes, as element text or as an attribute's value.
public enum XMLEscape {
    /// `text` with markup characters as entities and control characters XML 1.0 forbids as U+FFFD. In an
    /// attribute (`attribute`), tab, newline and carriage return become character references too: a reader
    /// turns them into spaces otherwise (attribute-value normalisation), and a recipe's JSON keeps its lines.
    public static func escaped(_ text: String, attribute: Bool = false) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for c in text.unicodeScalars {
            switch c {
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "&": out += "&amp;"
            case "\"": out += "&quot;"
            case "\t", "\n", "\r":
                if attribute { out += "&#\(c.value);" } else { out.unicodeScalars.append(c) }
            default:
                if c.value < 0x20 { out += "&#xFFFD;" } else { out.unicodeScalars.append(c) }
            }
        }
        return out
    }
}
