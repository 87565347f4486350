#if canImport(FoundationXML)
import FoundationXML
#endif
import Foundation

/// A namespace-resolved XML element: just enough XML for XMP packets.
///
/// XMP is RDF/XML; `XMLTreeParser` builds these from Foundation's `XMLParser` (libxml2 underneath), keeping
/// only what XMP reading needs. Anything malformed is an error, not a guess.
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
///
/// `XMLParser` wants one root element, so the text is wrapped in a synthetic one (after its byte order mark and
/// XML declaration, which may only come first) and the wrapper's children are the result.
enum XMLTreeParser {
    /// Nesting deeper than this is refused: real XMP nests about ten levels.
    static let maxDepth = 256

    static func parse(_ text: String) throws -> [XMLElementNode] {
        try parse(Array(text.utf8))
    }

    static func parse<C: Collection>(_ utf8: C) throws -> [XMLElementNode] where C.Element == UInt8 {
        var bytes = Array(utf8)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        bytes = withDataInProcessingInstructions(withoutXMLDeclaration(bytes))
        let wrapped = Array("<depthbook-packets>".utf8) + bytes + Array("</depthbook-packets>".utf8)
        let parser = XMLParser(data: Data(wrapped))
        parser.shouldProcessNamespaces = true
        parser.shouldReportNamespacePrefixes = true
        parser.shouldResolveExternalEntities = false
        let builder = TreeBuilder()
        parser.delegate = builder
        let parsed = parser.parse()
        if let failure = builder.failure { throw failure }
        guard parsed, let wrapper = builder.finished else {
            let why = parser.parserError.map { "\($0.localizedDescription)" } ?? "parse failed"
            throw PhotoError.badMetadata("XMP is not well-formed XML (\(why) at line \(parser.lineNumber))")
        }
        guard wrapper.text.allSatisfy({ $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" || $0 == "\0" }) else {
            throw PhotoError.badMetadata("XMP is not well-formed XML (text outside any element)")
        }
        guard !wrapper.children.isEmpty else { throw PhotoError.badMetadata("XMP has no elements") }
        return wrapper.children
    }

    /// The bytes after a leading `<?xml ...?>` declaration (and the whitespace before it), if there is one.
    private static func withoutXMLDeclaration(_ bytes: [UInt8]) -> [UInt8] {
        var start = 0
        while start < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[start]) { start += 1 }
        guard bytes[start...].starts(with: Array("<?xml".utf8)), start + 5 < bytes.count,
              [0x20, 0x0A, 0x0D, 0x09].contains(bytes[start + 5]) else { return bytes }
        var k = start + 5
        while k + 1 < bytes.count {
            if bytes[k] == UInt8(ascii: "?"), bytes[k + 1] == UInt8(ascii: ">") { return Array(bytes[(k + 2)...]) }
            k += 1
        }
        return bytes
    }

    private static let commentOpen = Array("<!--".utf8), commentClose = Array("-->".utf8)
    private static let cdataOpen = Array("<![CDATA[".utf8), cdataClose = Array("]]>".utf8), piClose = Array("?>".utf8)

    /// The bytes with a space before the `?>` of each processing instruction that has no data (`<?x?>`).
    ///
    /// libxml2 reports such an instruction's data as a NULL pointer, which swift-corelibs-foundation's `XMLParser`
    /// (Swift 6.3) reads as a C string whenever a delegate is set: the process dies, and an uploaded photo with
    /// `<?x?>` in its XMP ended the studio (the XMP fuzz campaign found it). With the space the data is empty and
    /// nothing else changes: XMP readers ignore processing instructions. Comments and CDATA sections, where `<?` is
    /// text, are copied as they are.
    static func withDataInProcessingInstructions(_ bytes: [UInt8]) -> [UInt8] {
        func find(_ p: [UInt8], from start: Int) -> Int? {
            var k = start
            while k + p.count <= bytes.count {
                if bytes[k] == p[0], bytes[k..<(k + p.count)].elementsEqual(p) { return k }
                k += 1
            }
            return nil
        }
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        // Once no `?>` follows, none will: later `<?` are not looked for again (inputs of many `<?` stay linear).
        var unclosed = false
        var i = 0
        while i < bytes.count {
            guard bytes[i] == UInt8(ascii: "<"), i + 1 < bytes.count else {
                out.append(bytes[i])
                i += 1
                continue
            }
            let rest = bytes[i...]
            if let (open, close) = [(commentOpen, commentClose), (cdataOpen, cdataClose)].first(where: { rest.starts(with: $0.0) }) {
                let stop = find(close, from: i + open.count).map { $0 + close.count } ?? bytes.count
                out += bytes[i..<stop]
                i = stop
            } else if bytes[i + 1] == UInt8(ascii: "?"), !unclosed, let close = find(piClose, from: i + 2) {
                out += bytes[i..<close]
                if !bytes[(i + 2)..<close].contains(where: isSpace) { out.append(0x20) }
                out += piClose
                i = close + 2
            } else {
                if bytes[i + 1] == UInt8(ascii: "?") { unclosed = true }
                out.append(bytes[i])
                i += 1
            }
        }
        return out
    }

    /// An element whose end tag has not been seen yet.
    private struct OpenElement {
        let namespace: String
        let localName: String
        let attributes: [XMLAttribute]
        /// Prefix → namespace URI in scope inside this element.
        let scope: [String: String]
        var children: [XMLElementNode] = []
        var text = ""
    }

    /// The parser's delegate: keeps a stack of open elements and resolves attribute prefixes itself, since
    /// `XMLParser` reports attributes by qualified name only.
    private final class TreeBuilder: NSObject, XMLParserDelegate {
        var stack: [OpenElement] = []
        /// Prefix mappings announced for the element about to start.
        var pending: [String: String] = [:]
        var finished: XMLElementNode?
        var failure: PhotoError?

        func fail(_ parser: XMLParser, _ why: String) {
            if failure == nil { failure = .badMetadata("XMP is not well-formed XML (\(why) at line \(parser.lineNumber))") }
            parser.abortParsing()
        }

        func parser(_ parser: XMLParser, didStartMappingPrefix prefix: String, toURI namespaceURI: String) {
            pending[prefix] = namespaceURI
        }

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
            guard failure == nil else { return }
            guard stack.count <= XMLTreeParser.maxDepth else { return fail(parser, "elements nested too deeply") }
            var scope = stack.last?.scope ?? ["xml": XMPNamespace.xml]
            scope.merge(pending) { _, new in new }
            pending = [:]
            let qualified = qName ?? elementName
            if let colon = qualified.firstIndex(of: ":"), scope[String(qualified[..<colon])] == nil {
                return fail(parser, "undeclared prefix \(qualified[..<colon]):")
            }
            var attributes: [XMLAttribute] = []
            // XMLParser hands attributes over as a dictionary, so document order is gone; sorting keeps the
            // resulting property order the same from run to run.
            for (name, value) in attributeDict.sorted(by: { $0.key < $1.key }) where name != "xmlns" && !name.hasPrefix("xmlns:") {
                if let colon = name.firstIndex(of: ":") {
                    let prefix = String(name[..<colon])
                    guard let uri = scope[prefix] else { return fail(parser, "undeclared prefix \(prefix):") }
                    attributes.append(XMLAttribute(namespace: uri, localName: String(name[name.index(after: colon)...]), value: value))
                } else {
                    attributes.append(XMLAttribute(namespace: "", localName: name, value: value))
                }
            }
            let local = qualified.firstIndex(of: ":").map { String(qualified[qualified.index(after: $0)...]) } ?? elementName
            stack.append(OpenElement(namespace: namespaceURI ?? "", localName: local, attributes: attributes, scope: scope))
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
            guard failure == nil, let open = stack.popLast() else { return }
            let element = XMLElementNode(namespace: open.namespace, localName: open.localName, attributes: open.attributes,
                                         children: open.children, text: open.text)
            if stack.isEmpty { finished = element } else { stack[stack.count - 1].children.append(element) }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            guard failure == nil, !stack.isEmpty else { return }
            stack[stack.count - 1].text += string
        }

        func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
            guard failure == nil, !stack.isEmpty else { return }
            stack[stack.count - 1].text += String(decoding: CDATABlock, as: UTF8.self)
        }

        func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
            fail(parser, "\(parseError.localizedDescription)")
        }
    }
}
