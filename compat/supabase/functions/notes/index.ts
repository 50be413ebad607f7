// The shape of Supabase's own examples: answer CORS, build a client that
// acts as the caller (their Authorization), read through RLS, call another
// API, answer JSON.
import { createClient } from "npm:@supabase/supabase-js@2.119.0";
import { corsHeaders } from "../_shared/cors.ts";

Deno.serve(async (req) => {
  if (req.method === "OPTIONS") return new Response("ok", { headers: corsHeaders });
  try {
    const { quoteUrl } = await req.json();
    const supabase = createClient(Deno.env.get("SUPABASE_URL")!, Deno.env.get("SUPABASE_ANON_KEY")!, {
      global: { headers: { Authorization: req.headers.get("Authorization")! } },
    });
    const { data: notes, error } = await supabase.from("compat_fn_notes").select("body").order("body");
    if (error) throw error;
    const quote = await (await fetch(quoteUrl)).json();
    return new Response(JSON.stringify({ notes: notes.map((n) => n.body), quote: quote.text }), {
      headers: { ...corsHeaders, "Content-Type": "application/json" },
    });
  } catch (err) {
    return new Response(JSON.stringify({ error: String((err as Error)?.message ?? err) }), {
      status: 400,
      headers: { ...corsHeaders, "Content-Type": "application/json" },
    });
  }
});
