#!/usr/bin/env python3
"""Rewrites MODNet's ONNX graph (as exported from PyTorch 1.7 at opset 11) into one Debian's OpenCV 4.6 DNN loads.

    modnet-for-opencv.py SOURCE.onnx OUT.onnx HEIGHT WIDTH

Two edits, nothing else (the weights and every other node are kept byte for byte):
- Its 35 `Clip` nodes (ReLU6) take min and max as inputs, from `Constant` nodes, as opset 11 allows; OpenCV 4.6's
  importer accepts a Clip with one input and `min`/`max` attributes only. The bounds move to attributes and the
  constants that fed them, now unused, are dropped. (This is the opset-6 form of Clip: `onnx.checker` rejects it
  at opset 11, and OpenCV is the only reader of the result.)
- The input's batch, height and width are symbolic; OpenCV 4.6 fails at the graph's `Shape` nodes unless they are
  numbers. They become 1 × 3 × HEIGHT × WIDTH (both multiples of 32), and the output 1 × 1 × HEIGHT × WIDTH.

Needs the `onnx` Python package (Debian's python3-onnx, or PyPI's onnx).
"""
import sys

import onnx
from onnx import helper, numpy_helper


def constant_value(node):
    """The scalar a `Constant` node holds."""
    for attribute in node.attribute:
        if attribute.name == "value":
            return float(numpy_helper.to_array(attribute.t).reshape(-1)[0])
    raise SystemExit(f"Constant {node.name} has no tensor value")


def rewrite(model, height, width):
    graph = model.graph
    constants = {node.output[0]: node for node in graph.node if node.op_type == "Constant"}
    fed_clips = set()
    clips = 0
    for node in graph.node:
        if node.op_type != "Clip":
            continue
        if len(node.input) == 1:
            continue
        bounds = []
        for name in node.input[1:]:
            if name == "":
                bounds.append(None)
            elif name in constants:
                bounds.append(constant_value(constants[name]))
                fed_clips.add(name)
            else:
                raise SystemExit(f"Clip {node.name}: bound {name} is not a Constant node")
        while len(node.input) > 1:
            node.input.pop()
        low = bounds[0] if len(bounds) > 0 else None
        high = bounds[1] if len(bounds) > 1 else None
        if low is not None:
            node.attribute.append(helper.make_attribute("min", low))
        if high is not None:
            node.attribute.append(helper.make_attribute("max", high))
        clips += 1

    # Drop the Constant nodes that fed only the Clips' bounds.
    still_read = {name for node in graph.node for name in node.input}
    still_read |= {output.name for output in graph.output}
    unused = [node for node in graph.node
              if node.op_type == "Constant" and node.output[0] in fed_clips and node.output[0] not in still_read]
    for node in unused:
        graph.node.remove(node)

    if len(graph.input) != 1 or len(graph.output) != 1:
        raise SystemExit(f"expected one input and one output, found {len(graph.input)} and {len(graph.output)}")
    for value, channels in ((graph.input[0], 3), (graph.output[0], 1)):
        dims = value.type.tensor_type.shape.dim
        if len(dims) != 4:
            raise SystemExit(f"{value.name}: expected 4 dimensions, found {len(dims)}")
        for dim, size in zip(dims, (1, channels, height, width)):
            if dim.HasField("dim_value") and dim.dim_value != size:
                raise SystemExit(f"{value.name}: dimension fixed at {dim.dim_value}, expected {size}")
            dim.dim_value = size  # setting the value clears dim_param (a oneof)
    return clips, len(unused)


def main():
    if len(sys.argv) != 5:
        raise SystemExit(__doc__)
    source, target, height, width = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    if height <= 0 or width <= 0 or height % 32 or width % 32:
        raise SystemExit("HEIGHT and WIDTH must be positive multiples of 32")
    model = onnx.load(source)
    clips, dropped = rewrite(model, height, width)
    if clips != 35:
        raise SystemExit(f"expected MODNet's 35 Clip nodes with input bounds, rewrote {clips}")
    with open(target, "wb") as out:
        out.write(model.SerializeToString())
    print(f"{target}: 1x3x{height}x{width}, {clips} Clip nodes given attributes, {dropped} constants dropped")


if __name__ == "__main__":
    main()
