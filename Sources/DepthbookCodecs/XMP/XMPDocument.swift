/// The RDF data model of an XMP packet: properties whose values are text, arrays or structures.
///
/// RDF/XML spells the same property several ways (an attribute on `rdf:Description`, an element with
/// text, an element with `rdf:parseType="Resource"`, a nested `rdf:Description`, an element whose
/// attributes are its fields). `XMPDocument` folds all of them into one tree, so readers ask for
/// `(namespace, name)` and never care which spelling a camera used.
indirect enum XMPValue: Sendable {
    case text(String)
    case array([XMPValue])
    case structure([XMPProperty])

    var text: String? {
        if case .text(let s) = self { return s }
        return nil
    }

    var items: [XMPValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    var fields: [XMPProperty]? {
        if case .structure(let f) = self { return f }
        return nil
    }

    /// A field of a structure value.
    func field(_ namespace: String, _ name: String) -> XMPValue? {
        fields?.first { $0.namespace == namespace && $0.name == name }?.value
    }

    /// The text as a number (nil for missing or junk values).
    var double: Double? {
        guard let t = text?.trimmingSpaces, let v = Double(t), v.isFinite else { return nil }
        return v
    }

    /// An array of numbers; nil if any entry is not a number.
    var doubles: [Double]? {
        guard let items else { return nil }
        var out: [Double] = []
        out.reserveCapacity(items.count)
        for item in items {
            guard let v = item.double else { return nil }
            out.append(v)
        }
        return out
    }
}

struct XMPProperty: Sendable {
    let namespace: String
    let name: String
    let value: XMPValue
}

/// A parsed XMP packet (or several concatenated ones): the properties of every top-level `rdf:Description`.
struct XMPDocument: Sendable {
    let properties: [XMPProperty]

    /// Parses XMP text. Throws `PhotoError.badMetadata` when it is not well-formed or has no RDF.
    init(_ text: String) throws {
        try self.init(utf8: Array(text.utf8))
    }

    init(utf8: [UInt8]) throws {
        // Packets are often padded with NULs; the XML ends at the last '>'.
        var end = utf8.count
        while end > 0, utf8[end - 1] == 0 { end -= 1 }
        let roots = try XMLTreeParser.parse(utf8[0..<end])
        var props: [XMPProperty] = []
        var sawRDF = false
        for root in roots {
            for rdf in root.descendants(XMPNamespace.rdf, "RDF") {
                sawRDF = true
                for description in rdf.children where description.is(XMPNamespace.rdf, "Description") {
                    props.append(contentsOf: XMPDocument.fields(of: description))
                }
            }
        }
        guard sawRDF else { throw PhotoError.badMetadata("XMP has no rdf:RDF element") }
        properties = props
    }

    init(properties: [XMPProperty]) { self.properties = properties }

    func value(_ namespace: String, _ name: String) -> XMPValue? {
        properties.first { $0.namespace == namespace && $0.name == name }?.value
    }

    func text(_ namespace: String, _ name: String) -> String? { value(namespace, name)?.text?.trimmingSpaces }
    func double(_ namespace: String, _ name: String) -> Double? { value(namespace, name)?.double }

    /// Whether any property of `namespace` is present.
    func uses(_ namespace: String) -> Bool { properties.contains { $0.namespace == namespace } }

    /// Attributes that are not RDF syntax, namespace declarations or language tags are properties.
    private static func isPropertyAttribute(_ a: XMLAttribute) -> Bool {
        a.namespace != XMPNamespace.rdf && a.namespace != XMPNamespace.xml && !a.namespace.isEmpty
    }

    /// The properties a description-like element carries in its attributes and child elements.
    static func fields(of element: XMLElementNode) -> [XMPProperty] {
        var out: [XMPProperty] = []
        for a in element.attributes where isPropertyAttribute(a) {
            out.append(XMPProperty(namespace: a.namespace, name: a.localName, value: .text(a.value)))
        }
        // A property element is named in a namespace of its own, as a property attribute is: one without a namespace
        // (or in xml:, reserved for xml:lang and the like) is not RDF, and no prefix could write it back.
        for child in element.children where !child.namespace.isEmpty && child.namespace != XMPNamespace.xml {
            out.append(XMPProperty(namespace: child.namespace, name: child.localName, value: value(ofPropertyElement: child)))
        }
        return out
    }

    /// The value of a property element, whichever RDF spelling it uses.
    static func value(ofPropertyElement e: XMLElementNode) -> XMPValue {
        if let container = e.children.first(where: {
            $0.namespace == XMPNamespace.rdf && ($0.localName == "Seq" || $0.localName == "Bag" || $0.localName == "Alt")
        }) {
            return .array(container.children.filter { $0.is(XMPNamespace.rdf, "li") }.map(value(ofPropertyElement:)))
        }
        if let description = e.children.first(where: { $0.is(XMPNamespace.rdf, "Description") }) {
            return .structure(fields(of: description) + e.attributes.filter(isPropertyAttribute).map {
                XMPProperty(namespace: $0.namespace, name: $0.localName, value: .text($0.value))
            })
        }
        if !e.children.isEmpty || e.attribute(XMPNamespace.rdf, "parseType") == "Resource"
            || e.attributes.contains(where: isPropertyAttribute) {
            return .structure(fields(of: e))
        }
        if let resource = e.attribute(XMPNamespace.rdf, "resource") { return .text(resource) }
        return .text(e.text)
    }
}

extension String {
    /// The string without leading and trailing whitespace (no Foundation needed).
    var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
