import { NextResponse } from "next/server";
import { route } from "@/lib/server/edge";

export const dynamic = "force-dynamic";

/** Any /api path no route serves: a JSON 404 (an API client parses JSON, not Next's HTML page). */
export const GET = route({ need: "public" }, async () => NextResponse.json({ error: "no such API endpoint" }, { status: 404 }));
export const POST = route({ need: "public" }, async () => NextResponse.json({ error: "no such API endpoint" }, { status: 404 }));
