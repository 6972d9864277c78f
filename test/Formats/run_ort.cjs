// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Runs an ONNX model in ONNX Runtime (npm onnxruntime-node) on the CPU.
// Usage: node run_ort.cjs NODE_MODULES MODEL INPUTS.json
// INPUTS.json: {"name": {"type": "float32"|"int64", "dims": [...],
// "data": [...]}}. Prints {"output": {"dims": [...], "data": [...]}}.
'use strict';
const path = require('path');
const fs = require('fs');
const [modules, model, inputsPath] = process.argv.slice(2);
const ort = require(path.join(modules, 'onnxruntime-node'));
(async () => {
  const spec = JSON.parse(fs.readFileSync(inputsPath, 'utf8'));
  const feeds = {};
  for (const [name, t] of Object.entries(spec)) {
    const data = t.type === 'int64'
      ? BigInt64Array.from(t.data.map(BigInt))
      : Float32Array.from(t.data);
    feeds[name] = new ort.Tensor(t.type, data, t.dims);
  }
  const session = await ort.InferenceSession.create(model,
    {executionProviders: ['cpu'], graphOptimizationLevel: 'disabled',
     logSeverityLevel: 3});
  const results = await session.run(feeds);
  const out = {};
  for (const [name, t] of Object.entries(results))
    out[name] = {dims: t.dims, data: Array.from(t.data, Number)};
  process.stdout.write(JSON.stringify(out));
})().catch((e) => {
  process.stderr.write(String(e && e.stack || e) + '\n');
  process.exit(1);
});
