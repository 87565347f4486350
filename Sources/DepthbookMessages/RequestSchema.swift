import DepthbookDocument
import DepthbookProtocol

/// Every request of studio protocol version 1 as a JSON Schema (draft 2020-12), its bounds read from `Limits`:
/// what a client may send, for other clients to check themselves against (`depthbook protocol-schema` prints it;
/// an end-to-end test checks the page's own messages with it, and that the server refuses exactly what it
/// refuses). It says what `RequestDecoder` checks, no more: each request's fields, their types and bounds. What
/// depends on the session (an open notebook, a cell it has, an effect's parameter ranges), on a notebook's
/// contents (docs/notebook-format.md), on the message's size in bytes, or on two fields at once (a setParams'
/// `params` and `unset` together) the server checks on its own.
public enum RequestSchema {
    public static func document(_ limits: Limits = .studio) -> JSONValue {
        let n = limits.notebook
        var rules: [JSONValue] = []
        for kind in StudioRequest.Kind.allCases {
            let body = fields(kind, limits)
            rules.append(object([
                "if": object(["properties": object(["type": object(["const": .string(kind.rawValue)])]), "required": strings(["type"])]),
                "then": body,
            ]))
        }
        return object([
            "$schema": .string("https://json-schema.org/draft/2020-12/schema"),
            "$id": .string("https://depthbook.invalid/protocol/1/request.schema.json"),
            "title": .string("A request of the Depthbook studio protocol, version 1 (docs/protocol.md)"),
            "type": .string("object"),
            "required": strings(["id", "type"]),
            "properties": object([
                // Ids, like sequence numbers, stay within JSON's exact integers.
                "id": integer(1...limits.maxSeq),
                "type": object(["enum": strings(StudioRequest.Kind.allCases.map(\.rawValue))]),
            ]),
            "allOf": .array(rules),
            "$defs": object([
                "seq": integer(0...limits.maxSeq),
                "parameterValue": object(["oneOf": .array([
                    object(["type": .string("boolean")]),
                    object(["type": .string("number")]),
                    object(["type": .string("string")]),
                    object(["type": .string("array"), "items": object(["type": .string("number")]), "minItems": .number(2), "maxItems": .number(2)]),
                ])]),
                "cells": object(["type": types("array", "null"), "items": object(["type": .string("string")]), "maxItems": .number(Double(n.maxCells))]),
            ]),
        ])
    }

    /// What one kind of request carries besides its id and type.
    static func fields(_ kind: StudioRequest.Kind, _ limits: Limits) -> JSONValue {
        let n = limits.notebook
        let text = object(["type": .string("string")]), optionalText = object(["type": types("string", "null")])
        let seq = reference("seq"), optionalSwitch = object(["type": types("boolean", "null")])
        switch kind {
        case .hello:
            // Another version is answered `unsupported`.
            return body(["protocol": object(["const": .number(Double(StudioRequest.Hello.version))]), "session": optionalText, "resume": optionalText, "watch": optionalText],
                        required: ["protocol"])
        case .listSamples, .listNotebooks, .effects, .save:
            return object([:])
        case .openNotebook:
            // Exactly one: a bundled notebook by name or a saved one by its id.
            return object([
                "properties": object(["name": optionalText, "shared": optionalText]),
                "oneOf": .array(["name", "shared"].map { one(of: $0) }),
            ])
        case .openPhoto:
            let photo = object([
                "type": .string("object"),
                "properties": object(["sample": optionalText, "upload": optionalText, "path": optionalText]),
                "anyOf": .array(["sample", "upload", "path"].map { one(of: $0) }),
            ])
            return body(["photo": photo], required: ["photo"])
        case .setNotebook:
            // The notebook format is docs/notebook-format.md; the server validates a notebook against the effects.
            return body(["notebook": object(["type": .string("object")])], required: ["notebook"])
        case .setParams:
            return body([
                "cell": text,
                "params": object(["type": .string("object"), "additionalProperties": reference("parameterValue"),
                                  "maxProperties": .number(Double(n.maxParamsPerCell))]),
                "unset": object(["type": types("array", "null"), "items": object(["type": .string("string")]),
                                 "maxItems": .number(Double(n.maxParamsPerCell))]),
                "seq": seq, "interactive": optionalSwitch, "offscreen": reference("cells"),
            ], required: ["cell", "params", "seq"])
        case .preview:
            return body(["cell": text, "width": integer(limits.previewWidth), "seq": seq, "interactive": optionalSwitch],
                        required: ["cell", "width", "seq"])
        case .crop:
            let corner = integer(0...limits.maxImageSide), side = integer(1...limits.maxCropSide)
            return body(["cell": text, "x": corner, "y": corner, "w": side, "h": side, "seq": seq], required: ["cell", "x", "y", "w", "h", "seq"])
        case .histogram:
            return body(["cell": text, "bins": integer(limits.histogramBins)], required: ["cell", "bins"])
        case .export:
            return body([
                "cell": text,
                "format": object(["enum": strings(ExportFormat.allCases.map(\.rawValue))]),
                "frames": nullable(integer(limits.exportFrames)),
                "width": nullable(integer(limits.exportWidth)),
            ], required: ["cell", "format"])
        case .checkFormula:
            // The server counts the formula's bytes; formulas are ASCII, where characters are bytes.
            return body(["formula": object(["type": .string("string"), "maxLength": .number(Double(n.maxFormulaLength))]), "cell": optionalText],
                        required: ["formula"])
        }
    }

    private static func object(_ members: [String: JSONValue]) -> JSONValue { .object(members) }
    private static func strings(_ values: [String]) -> JSONValue { .array(values.map { .string($0) }) }
    private static func types(_ names: String...) -> JSONValue { strings(names) }
    private static func reference(_ name: String) -> JSONValue { object(["$ref": .string("#/$defs/\(name)")]) }

    private static func integer(_ range: ClosedRange<Int>) -> JSONValue {
        object(["type": .string("integer"), "minimum": .number(Double(range.lowerBound)), "maximum": .number(Double(range.upperBound))])
    }

    /// An optional field as the decoder reads it: absent and `null` alike.
    private static func nullable(_ schema: JSONValue) -> JSONValue {
        object(["oneOf": .array([object(["type": .string("null")]), schema])])
    }

    private static func body(_ properties: [String: JSONValue], required: [String]) -> JSONValue {
        object(["properties": object(properties), "required": strings(required)])
    }

    /// `field` is given as a string.
    private static func one(of field: String) -> JSONValue {
        object(["properties": object([field: object(["type": .string("string")])]), "required": strings([field])])
    }
}
