Deno.serve(async (req) =>
  Response.json({ method: req.method, path: new URL(req.url).pathname, body: await req.text() })
);
