/// Serialises XMP properties as one RDF/XML packet, choosing stable prefixes for known namespaces.
struct XMPWriter {
    static let knownPrefixes: [String: String] = [
        XMPNamespace.apdi: "apdi", XMPNamespace.depthData: "depthData",
        XMPNamespace.portraitEffectsMatte: "portraitEffectsMatte",
        XMPNamespace.semanticSegmentationMatte: "semanticSegmentationMatte",
        XMPNamespace.hdrGainMap: "HDRGainMap", XMPNamespace.mwgRegions: "mwg-rs", XMPNamespace.stArea: "stArea",
        XMPNamespace.stDim: "stDim", XMPNamespace.xmpNote: "xmpNote", XMPNamespace.depthbook: "depthbook",
        "http://ns.adobe.com/xap/1.0/": "xmp", "http://ns.adobe.com/photoshop/1.0/": "photoshop",
        "http://purl.org/dc/elements/1.1/": "dc", "http://ns.apple.com/faceinfo/1.0/": "apple-fi",
        "http://ns.adobe.com/exif/1.0/": "exif", "http://ns.adobe.com/tiff/1.0/": "tiff",
    ]

    private var prefixes: [String: String] = [:]
    private var order: [String] = []

    private mutating func prefix(for namespace: String) -> String {
        if let p = prefixes[namespace] { return p }
        var p = XMPWriter.knownPrefixes[namespace] ?? "ns\(order.count + 1)"
        if prefixes.values.contains(p) { p = "ns\(order.count + 1)" }
        prefixes[namespace] = p
        order.append(namespace)
        return p
    }

    /// The packet text for `properties` (one `rdf:Description`).
    static func packet(_ properties: [XMPProperty]) -> String {
        var writer = XMPWriter()
        var body = ""
        for p in properties { body += writer.element(p, indent: 3) }
        let declarations = writer.order.map { "\n            xmlns:\(writer.prefixes[$0] ?? "")=\"\(escape($0))\"" }.joined()
        return """
        <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="Depthbook">
           <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
              <rdf:Description rdf:about=""\(declarations)>
        \(body)      </rdf:Description>
           </rdf:RDF>
        </x:xmpmeta>
        """
    }

    private mutating func element(_ p: XMPProperty, indent: Int) -> String {
        let pad = String(repeating: "   ", count: indent)
        let name = "\(prefix(for: p.namespace)):\(p.name)"
        switch p.value {
        case .text(let t):
            return "\(pad)<\(name)>\(XMPWriter.escape(t))</\(name)>\n"
        case .array(let items):
            var s = "\(pad)<\(name)>\n\(pad)   <rdf:Seq>\n"
            for item in items { s += li(item, indent: indent + 2) }
            return s + "\(pad)   </rdf:Seq>\n\(pad)</\(name)>\n"
        case .structure(let fields):
            var s = "\(pad)<\(name) rdf:parseType=\"Resource\">\n"
            for f in fields { s += element(f, indent: indent + 1) }
            return s + "\(pad)</\(name)>\n"
        }
    }

    private mutating func li(_ value: XMPValue, indent: Int) -> String {
        let pad = String(repeating: "   ", count: indent)
        switch value {
        case .text(let t):
            return "\(pad)<rdf:li>\(XMPWriter.escape(t))</rdf:li>\n"
        case .array(let items):
            var s = "\(pad)<rdf:li>\n\(pad)   <rdf:Seq>\n"
            for item in items { s += li(item, indent: indent + 2) }
            return s + "\(pad)   </rdf:Seq>\n\(pad)</rdf:li>\n"
        case .structure(let fields):
            var s = "\(pad)<rdf:li rdf:parseType=\"Resource\">\n"
            for f in fields { s += element(f, indent: indent + 1) }
            return s + "\(pad)</rdf:li>\n"
        }
    }

    static func escape(_ s: String) -> String { XMLEscape.escaped(s) }
}

extension XMPProperty {
    static func text(_ namespace: String, _ name: String, _ value: String) -> XMPProperty {
        XMPProperty(namespace: namespace, name: name, value: .text(value))
    }

    static func number(_ namespace: String, _ name: String, _ value: Double) -> XMPProperty {
        XMPProperty(namespace: namespace, name: name, value: .text(XMPProperty.format(value)))
    }

    static func numbers(_ namespace: String, _ name: String, _ values: [Double]) -> XMPProperty {
        XMPProperty(namespace: namespace, name: name, value: .array(values.map { .text(XMPProperty.format($0)) }))
    }

    /// Shortest text that reads back as the same Double; integers without a fraction.
    static func format(_ v: Double) -> String {
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return "\(v)"
    }
}
