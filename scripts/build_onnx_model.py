#!/usr/bin/env python3
"""Builds an ONNX graph of a BERT sentence encoder from its `model.safetensors`, for fathom's ONNX
Runtime embedder (src/index/onnx_bert.rs). No PyTorch: the graph is written node by node with the
`onnx` package's helpers, and the weights are read straight from the safetensors file.

usage: build_onnx_model.py MODEL_DIR OUT.onnx [--int8 OUT_INT8.onnx]

The graph takes `input_ids`, `attention_mask` and `token_type_ids` (int64, [batch, seq], right-
padded) and returns `last_hidden_state` (float32, [batch, seq, hidden]); pooling and
normalisation stay in fathom, shared with the candle path. It uses ONNX Runtime's fused CPU
operators (com.microsoft `Attention`, `SkipLayerNormalization`, `BiasGelu`) so that the runtime
need not rediscover them by pattern matching. `--int8` also writes a dynamically quantised copy
(int8 weights, activations quantised per batch at run time: VNNI kernels on CPUs that have them).
"""

import json
import os
import struct
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
MS = "com.microsoft"
DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}


def read_safetensors(path):
    """name -> float32 array, for every floating tensor of the file."""
    with open(path, "rb") as f:
        (header_len,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(header_len))
        data = f.read()
    out = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        dtype = DTYPES.get(meta["dtype"])
        if dtype is None:
            raise SystemExit(f"{path}: tensor {name} has unsupported dtype {meta['dtype']}")
        start, end = meta["data_offsets"]
        arr = np.frombuffer(data[start:end], dtype=dtype).reshape(meta["shape"])
        if arr.dtype != np.int64:
            out[name] = arr.astype(np.float32)
    # BertFor… checkpoints keep the encoder under "bert."; sentence-transformers ones at the root.
    if "bert.embeddings.word_embeddings.weight" in out:
        out = {k[len("bert."):]: v for k, v in out.items() if k.startswith("bert.")}
    return out


class Graph:
    def __init__(self, weights):
        self.w = weights
        self.nodes = []
        self.inits = []
        self.names = set()

    def init(self, name, array):
        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def weight(self, key, transpose=False):
        if key not in self.w:
            raise SystemExit(f"weights file has no tensor {key}")
        arr = self.w[key].T if transpose else self.w[key]
        return self.init(key + (".T" if transpose else ""), arr)

    def node(self, op, inputs, name, domain=None, outputs=None, **attrs):
        outputs = outputs or [name]
        self.nodes.append(helper.make_node(op, inputs, outputs, name=name, domain=domain, **attrs))
        return outputs[0] if len(outputs) == 1 else outputs


def build(model_dir):
    with open(os.path.join(model_dir, "config.json")) as f:
        cfg = json.load(f)
    act = cfg.get("hidden_act", "gelu")
    if act != "gelu":
        raise SystemExit(f"hidden_act {act!r} is not supported (only the exact erf gelu)")
    if cfg.get("position_embedding_type", "absolute") != "absolute":
        raise SystemExit("only absolute position embeddings are supported")
    hidden = cfg["hidden_size"]
    heads = cfg["num_attention_heads"]
    eps = float(cfg["layer_norm_eps"])
    g = Graph(read_safetensors(os.path.join(model_dir, "model.safetensors")))

    # Embeddings: word + position (first `seq` rows) + token type, then LayerNorm.
    words = g.node("Gather", [g.weight("embeddings.word_embeddings.weight"), "input_ids"], "emb_words")
    types = g.node("Gather", [g.weight("embeddings.token_type_embeddings.weight"), "token_type_ids"], "emb_types")
    shape = g.node("Shape", ["input_ids"], "ids_shape")
    seq = g.node("Slice", [shape, g.init("one", np.array([1], np.int64)), g.init("two", np.array([2], np.int64))], "seq_len")
    positions = g.node(
        "Slice",
        [g.weight("embeddings.position_embeddings.weight"), g.init("zero", np.array([0], np.int64)), seq, g.init("axis0", np.array([0], np.int64))],
        "emb_positions",
    )
    summed = g.node("Add", [g.node("Add", [words, types], "emb_add1"), positions], "emb_add2")
    x = g.node(
        "LayerNormalization",
        [summed, g.weight("embeddings.LayerNorm.weight"), g.weight("embeddings.LayerNorm.bias")],
        "emb_ln",
        axis=-1,
        epsilon=eps,
    )
    mask = g.node("Cast", ["attention_mask"], "mask_i32", to=TensorProto.INT32)

    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        a = p + "attention.self."
        qkv_w = np.concatenate([g.w[a + n + ".weight"].T for n in ("query", "key", "value")], axis=1)
        qkv_b = np.concatenate([g.w[a + n + ".bias"] for n in ("query", "key", "value")])
        ctx = g.node(
            "Attention",
            [x, g.init(a + "qkv.weight", qkv_w), g.init(a + "qkv.bias", qkv_b), mask],
            f"l{i}_attention",
            domain=MS,
            num_heads=heads,
        )
        proj = g.node("MatMul", [ctx, g.weight(p + "attention.output.dense.weight", True)], f"l{i}_attn_out")
        x = g.node(
            "SkipLayerNormalization",
            [proj, x, g.weight(p + "attention.output.LayerNorm.weight"), g.weight(p + "attention.output.LayerNorm.bias"), g.weight(p + "attention.output.dense.bias")],
            f"l{i}_attn_ln",
            domain=MS,
            epsilon=eps,
        )
        up = g.node("MatMul", [x, g.weight(p + "intermediate.dense.weight", True)], f"l{i}_ffn_up")
        act = g.node("BiasGelu", [up, g.weight(p + "intermediate.dense.bias")], f"l{i}_gelu", domain=MS)
        down = g.node("MatMul", [act, g.weight(p + "output.dense.weight", True)], f"l{i}_ffn_down")
        x = g.node(
            "SkipLayerNormalization",
            [down, x, g.weight(p + "output.LayerNorm.weight"), g.weight(p + "output.LayerNorm.bias"), g.weight(p + "output.dense.bias")],
            f"l{i}_ffn_ln",
            domain=MS,
            epsilon=eps,
        )
    g.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"], name="output"))

    dims = ["batch", "sequence"]
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, dims) for n in ("input_ids", "attention_mask", "token_type_ids")]
    outputs = [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, dims + [hidden])]
    graph = helper.make_graph(g.nodes, "bert_encoder", inputs, outputs, g.inits)
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid(MS, 1)],
        producer_name="fathom scripts/build_onnx_model.py",
    )
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def quantise(src, dst):
    from onnxruntime.quantization import QuantType, quantize_dynamic

    # Per-channel int8 weights for every MatMul and the fused attention projections.
    # ONNX shape inference cannot see through the com.microsoft operators: say the tensors are float.
    quantize_dynamic(
        src,
        dst,
        weight_type=QuantType.QInt8,
        per_channel=True,
        op_types_to_quantize=["MatMul", "Attention"],
        extra_options={"DefaultTensorType": TensorProto.FLOAT},
    )


def main():
    args = sys.argv[1:]
    if len(args) not in (2, 4) or (len(args) == 4 and args[2] != "--int8"):
        raise SystemExit(__doc__)
    model = build(args[0])
    onnx.save(model, args[1])
    if len(args) == 4:
        quantise(args[1], args[3])


if __name__ == "__main__":
    main()
