// groundkit semantic search in the worker (ADR 0035), imported by worker.js only when a visitor
// turns it on: onnxruntime-web and the model come from the site's semantic/ folder (same
// origin), the model's SHA-256 and the tokenizer are checked against the collection's
// embedding identity in Python before the model runs, and each query is tokenized in Python,
// embedded here (mean pooling over the tokens, L2, as groundkit_native's OnnxEmbedder) and
// given back to Python, whose search is synchronous, before it searches.
// The Python half lives in groundkit.site.page_semantic.

export async function startSemantic({ py, site, siteUrl, fetchBytes, progress }) {
  const s = site.semantic;
  const base = (u) => new URL(u, siteUrl).href;
  progress("semantic", "Downloading the semantic search runtime…");
  const ortUrl = base(s.ort);
  const ortP = import(`${ortUrl}ort.wasm.min.mjs`);
  const modelP = fetchBytes(base(s.model), "semantic model", "semantic");
  const tokenizer = await fetchBytes(base(s.tokenizer), "tokenizer", null);
  const ort = await ortP;
  const model = await modelP;
  progress("semantic", "Checking and starting the semantic model…");
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", model));
  const hex = [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
  const glue = py.pyimport("groundkit.site.page_semantic");
  const enable = () => glue.enable(hex, tokenizer, s.similarity_floor);
  enable(); // raises (IndexIdentityError) unless the files are the identity's
  let session;
  try {
    ort.env.wasm.wasmPaths = ortUrl; // same origin: the site's copy, never a CDN
    ort.env.wasm.numThreads = 1; // no cross-origin isolation on a plain static host
    session = await ort.InferenceSession.create(model, { executionProviders: ["wasm"] });
  } catch (e) {
    glue.disable();
    throw e;
  }
  const output = session.outputNames.includes("last_hidden_state") ? "last_hidden_state" : session.outputNames[0];

  /** The query's vector: token states mean-pooled over the tokens (one text: all count), L2. */
  async function embed(query) {
    const ids = JSON.parse(glue.query_ids(query));
    const n = ids.length;
    const tensor = (values) => new ort.Tensor("int64", BigInt64Array.from(values, BigInt), [1, n]);
    const feeds = { input_ids: tensor(ids), attention_mask: tensor(ids.map(() => 1)) };
    if (session.inputNames.includes("token_type_ids")) feeds.token_type_ids = tensor(ids.map(() => 0));
    const out = (await session.run(feeds))[output];
    const [, tokens, dims] = out.dims;
    const data = out.data;
    const pooled = new Float64Array(dims);
    for (let t = 0; t < tokens; t++) for (let d = 0; d < dims; d++) pooled[d] += data[t * dims + d];
    let norm = 0;
    for (let d = 0; d < dims; d++) {
      pooled[d] = Math.fround(pooled[d] / tokens);
      norm += pooled[d] * pooled[d];
    }
    norm = Math.max(Math.sqrt(norm), 1e-12);
    return Array.from(pooled, (x) => Math.fround(x / norm));
  }

  progress("ready", "Semantic search is on.", 1);
  const handle = {
    active: true,
    embed,
    async give(query) {
      glue.give(query, JSON.stringify(await embed(query)));
    },
    enable() {
      enable();
      handle.active = true;
    },
  };
  return handle;
}
