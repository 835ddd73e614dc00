/** GET a JSON API route; a non-2xx answer throws with the server's `error` message. */
class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** The API's `{error}` message of a failed response (or its status line) as an ApiError. */
export async function apiErrorOf(res: Response): Promise<ApiError> {
  let message = `${res.status} ${res.statusText}`;
  try {
    const body = (await res.json()) as { error?: unknown };
    if (typeof body.error === "string") message = body.error;
  } catch {
    /* not JSON: keep the status line */
  }
  return new ApiError(message, res.status);
}

export async function fetchJson<T>(url: string, signal?: AbortSignal): Promise<T> {
  const res = await fetch(url, { signal, headers: { accept: "application/json" } });
  if (!res.ok) throw await apiErrorOf(res);
  return (await res.json()) as T;
}
