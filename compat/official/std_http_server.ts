// serve() as the Deno standard library's http/server.ts offered it (a
// handler, optional options), on Deno.serve: what the functions-js suite's
// functions import.
export function serve(
  handler: (req: Request, info: Deno.ServeHandlerInfo) => Response | Promise<Response>,
  options: Record<string, unknown> = {},
): Promise<void> {
  return Deno.serve(options, handler).finished;
}
