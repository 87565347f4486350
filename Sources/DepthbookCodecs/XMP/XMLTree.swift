/// A namespace-resolved XML element: just enough XML for XMP packets.
///
/// XMP is RDF/XML. Foundation's XML parser is not on every platform in the same shape and pulls in libxml2,
/// so Depthbook reads the small subset XMP uses: elements, attributes, text, comments, processing
/// instructions, CDATA and the predefined and numeric entities. Anything malformed is an error, not a guess.
final class XMLElementNode: Sendable {
    /// The namespace URI the element's prefix resolves to ("" when it has none).
    let namespace: String
    let localName: String
    /// Attributes other than namespace declarations, with resolved namespaces.
    let attributes: [XMLAttribute]
    let children: [XMLElementNode]
    /// The concatenated character data directly inside the element.
    let text: String

    init(namespace: String, localName: String, attributes: [XMLAttribute], children: [XMLElementNode], text: String) {
        self.namespace = namespace
        self.localName = localName
        self.attributes = attributes
        self.children = children
        self.text = text
    }

    func attribute(_ namespace: String, _ name: String) -> String? {
        attributes.first { $0.namespace == namespace && $0.localName == name }?.value
    }

    func `is`(_ namespace: String, _ name: String) -> Bool { self.namespace == namespace && localName == name }

    /// Every element in this subtree (self first), depth first.
    func descendants(_ namespace: String, _ name: String) -> [XMLElementNode] {
        var found: [XMLElementNode] = []
        var stack: [XMLElementNode] = [self]
        while let e = stack.popLast() {
            if e.is(namespace, name) { found.append(e) }
            stack.append(contentsOf: e.children.reversed())
        }
        return found
    }
}

struct XMLAttribute: Sendable {
    let namespace: String
    let localName: String
    let value: String
}

/// Parses a UTF-8 XML text into its top-level elements (an XMP file may hold several packets).
enum XMLTreeParser {
    /// Nesting deeper than this is refused: real XMP nests about ten levels.
    static let maxDepth = 256

    static func parse(_ text: String) throws -> [XMLElementNode] {
        try parse(Array(text.utf8))
    }

    static func parse<C: Collection>(_ utf8: C) throws -> [XMLElementNode] where C.Element == UInt8 {
        var parser = Parser(bytes: Array(utf8))
        return try parser.document()
    }

    private struct OpenElement {
        let qname: String
        let rawAttributes: [(String, String)]
        let namespaces: [String: String]
        var children: [XMLElementNode] = []
        var text: String = ""
    }

    private struct Parser {
        let bytes: [UInt8]
        var i = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
            // Skip a UTF-8 byte order mark.
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
        }

        func fail(_ why: String) -> PhotoError { .badMetadata("XMP is not well-formed XML (\(why) at byte \(i))") }

        mutating func document() throws -> [XMLElementNode] {
            var roots: [XMLElementNode] = []
            var stack: [OpenElement] = []
            let rootNamespaces = ["xml": "http://www.w3.org/XML/1998/namespace"]
            while i < bytes.count {
                if bytes[i] == UInt8(ascii: "<") {
                    if starts("<!--") {
                        try skip(past: "-->")
                    } else if starts("<?") {
                        try skip(past: "?>")
                    } else if starts("<![CDATA[") {
                        i += 9
                        let start = i
                        try skip(past: "]]>")
                        if !stack.isEmpty { stack[stack.count - 1].text += String(decoding: bytes[start..<(i - 3)], as: UTF8.self) }
                    } else if starts("<!") {
                        try skip(past: ">")
                    } else if starts("</") {
                        i += 2
                        let name = readName()
                        skipSpace()
                        guard i < bytes.count, bytes[i] == UInt8(ascii: ">") else { throw fail("unterminated end tag") }
                        i += 1
                        guard let open = stack.popLast() else { throw fail("end tag </\(name)> with no start") }
                        guard open.qname == name else { throw fail("</\(name)> closes <\(open.qname)>") }
                        let element = try finish(open)
                        if stack.isEmpty { roots.append(element) } else { stack[stack.count - 1].children.append(element) }
                    } else {
                        i += 1
                        let name = readName()
                        guard !name.isEmpty else { throw fail("a tag without a name") }
                        var raw: [(String, String)] = []
                        var selfClosing = false
                        while true {
                            skipSpace()
                            guard i < bytes.count else { throw fail("unterminated tag <\(name)>") }
                            if bytes[i] == UInt8(ascii: ">") { i += 1; break }
                            if bytes[i] == UInt8(ascii: "/") {
                                guard i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: ">") else { throw fail("stray / in <\(name)>") }
                                i += 2
                                selfClosing = true
                                break
                            }
                            let attr = readName()
                            guard !attr.isEmpty else { throw fail("bad attribute in <\(name)>") }
                            skipSpace()
                            guard i < bytes.count, bytes[i] == UInt8(ascii: "=") else { throw fail("attribute \(attr) has no value") }
                            i += 1
                            skipSpace()
                            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") || bytes[i] == UInt8(ascii: "'") else {
                                throw fail("attribute \(attr) is not quoted")
                            }
                            let quote = bytes[i]
                            i += 1
                            let start = i
                            while i < bytes.count, bytes[i] != quote { i += 1 }
                            guard i < bytes.count else { throw fail("unterminated attribute \(attr)") }
                            raw.append((attr, try decodeEntities(bytes[start..<i])))
                            i += 1
                        }
                        guard stack.count < XMLTreeParser.maxDepth else { throw fail("elements nested too deeply") }
                        var namespaces = stack.last?.namespaces ?? rootNamespaces
                        for (k, v) in raw {
                            if k == "xmlns" { namespaces[""] = v } else if k.hasPrefix("xmlns:") { namespaces[String(k.dropFirst(6))] = v }
                        }
                        let open = OpenElement(qname: name, rawAttributes: raw, namespaces: namespaces)
                        if selfClosing {
                            let element = try finish(open)
                            if stack.isEmpty { roots.append(element) } else { stack[stack.count - 1].children.append(element) }
                        } else {
                            stack.append(open)
                        }
                    }
                } else {
                    let start = i
                    while i < bytes.count, bytes[i] != UInt8(ascii: "<") { i += 1 }
                    let chunk = bytes[start..<i]
                    if stack.isEmpty {
                        // Outside any element only whitespace (or NUL padding) may appear.
                        if chunk.contains(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 || $0 == 0) }) {
                            throw fail("text outside any element")
                        }
                    } else {
                        stack[stack.count - 1].text += try decodeEntities(chunk)
                    }
                }
            }
            guard stack.isEmpty else { throw fail("<\(stack[stack.count - 1].qname)> is never closed") }
            guard !roots.isEmpty else { throw PhotoError.badMetadata("XMP has no elements") }
            return roots
        }

        func finish(_ open: OpenElement) throws -> XMLElementNode {
            func resolve(_ qname: String, isAttribute: Bool) throws -> (String, String) {
                if let colon = qname.firstIndex(of: ":") {
                    let prefix = String(qname[..<colon])
                    guard let uri = open.namespaces[prefix] else { throw fail("undeclared prefix \(prefix):") }
                    return (uri, String(qname[qname.index(after: colon)...]))
                }
                return (isAttribute ? "" : (open.namespaces[""] ?? ""), qname)
            }
            let (ns, local) = try resolve(open.qname, isAttribute: false)
            var attributes: [XMLAttribute] = []
            for (k, v) in open.rawAttributes where k != "xmlns" && !k.hasPrefix("xmlns:") {
                let (ans, alocal) = try resolve(k, isAttribute: true)
                attributes.append(XMLAttribute(namespace: ans, localName: alocal, value: v))
            }
            return XMLElementNode(namespace: ns, localName: local, attributes: attributes, children: open.children, text: open.text)
        }

        func starts(_ s: StaticString) -> Bool {
            let n = s.utf8CodeUnitCount
            guard i + n <= bytes.count else { return false }
            return s.withUTF8Buffer { buf in
                for k in 0..<n where bytes[i + k] != buf[k] { return false }
                return true
            }
        }

        mutating func skip(past s: StaticString) throws {
            while i < bytes.count {
                if starts(s) { i += s.utf8CodeUnitCount; return }
                i += 1
            }
            throw fail("unterminated \(s)")
        }

        mutating func skipSpace() {
            while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
        }

        mutating func readName() -> String {
            let start = i
            while i < bytes.count {
                let c = bytes[i]
                let isNameByte = c >= 0x80 || (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
                    || c == UInt8(ascii: ":") || c == UInt8(ascii: "_") || c == UInt8(ascii: "-") || c == UInt8(ascii: ".")
                if !isNameByte { break }
                i += 1
            }
            return String(decoding: bytes[start..<i], as: UTF8.self)
        }

        func decodeEntities(_ raw: ArraySlice<UInt8>) throws -> String {
            guard raw.contains(UInt8(ascii: "&")) else { return String(decoding: raw, as: UTF8.self) }
            var out: [UInt8] = []
            out.reserveCapacity(raw.count)
            var k = raw.startIndex
            while k < raw.endIndex {
                let c = raw[k]
                guard c == UInt8(ascii: "&") else { out.append(c); k += 1; continue }
                guard let semi = raw[k...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else { throw fail("a bare & in text") }
                let name = String(decoding: raw[(k + 1)..<semi], as: UTF8.self)
                switch name {
                case "lt": out.append(UInt8(ascii: "<"))
                case "gt": out.append(UInt8(ascii: ">"))
                case "amp": out.append(UInt8(ascii: "&"))
                case "quot": out.append(UInt8(ascii: "\""))
                case "apos": out.append(UInt8(ascii: "'"))
                default:
                    let scalarValue: UInt32?
                    if name.hasPrefix("#x") || name.hasPrefix("#X") {
                        scalarValue = UInt32(name.dropFirst(2), radix: 16)
                    } else if name.hasPrefix("#") {
                        scalarValue = UInt32(name.dropFirst(1))
                    } else {
                        scalarValue = nil
                    }
                    guard let v = scalarValue, let scalar = Unicode.Scalar(v) else { throw fail("unknown entity &\(name);") }
                    out.append(contentsOf: Array(String(Character(scalar)).utf8))
                }
                k = semi + 1
            }
            return String(decoding: out, as: UTF8.self)
        }
    }
}
