/** Next.js calls this once per server start: Retrace's start-up checks (lib/server/startup.ts). */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { checkStartup } = await import("./lib/server/startup");
  await checkStartup();
}
