/**
 * Every API answer the end-to-end tests read goes through its zod schema
 * (lib/view/api-types.ts): a route that drifts from the shape the viewer and the docs
 * rely on fails the test that called it, naming the route and the fields.
 */
import { expect, type APIRequestContext, type APIResponse } from "@playwright/test";
import { z } from "zod";

/** The response's JSON, parsed with `schema`, after checking the status. */
export async function answer<S extends z.ZodType>(res: APIResponse, schema: S, status?: number): Promise<z.infer<S>> {
  if (status !== undefined) expect(res.status(), `${res.url()} status`).toBe(status);
  expect(res.headers()["content-type"] ?? "", `${res.url()} content-type`).toMatch(/^application\/json/);
  const r = schema.safeParse(await res.json());
  if (!r.success) throw new Error(`${res.url()} (${res.status()}) answered outside its schema:\n${z.prettifyError(r.error)}`);
  return r.data;
}

/** GET `url` and parse its answer with `schema`. */
export async function getAnswer<S extends z.ZodType>(
  request: APIRequestContext,
  url: string,
  schema: S,
  status = 200,
): Promise<z.infer<S>> {
  return answer(await request.get(url), schema, status);
}
