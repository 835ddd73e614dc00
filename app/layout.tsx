import type { Metadata } from "next";
import "./globals.css";

export const metadata: Metadata = {
  title: "Retrace",
  description: "Replay debugger for AI agent runs",
};

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
