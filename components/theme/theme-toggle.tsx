"use client";
import { useEffect, useState } from "react";

type Theme = "system" | "light" | "dark";
const KEY = "retrace-theme";

function apply(theme: Theme) {
  if (theme === "system") delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
  document.cookie =
    theme === "system" ? `${KEY}=; path=/; max-age=0; samesite=lax` : `${KEY}=${theme}; path=/; max-age=31536000; samesite=lax`;
  window.dispatchEvent(new Event("retrace-theme"));
}

/** System → light → dark. */
export function ThemeToggle({ initial }: { initial: Theme }) {
  const [theme, setTheme] = useState<Theme>(initial);
  const next: Theme = theme === "system" ? "light" : theme === "light" ? "dark" : "system";
  return (
    <button
      type="button"
      aria-label={`Theme: ${theme}. Switch to ${next}`}
      title={`Theme: ${theme} (click for ${next})`}
      onClick={() => {
        apply(next);
        setTheme(next);
      }}
    >
      {theme === "system" ? "◐ System" : theme === "light" ? "☀ Light" : "☾ Dark"}
    </button>
  );
}

/** Is the page drawn dark right now (chosen, or the system's)? For canvas drawing. */
export function useIsDark(): boolean {
  const [dark, setDark] = useState(false);
  useEffect(() => {
    const mq = window.matchMedia("(prefers-color-scheme: dark)");
    const read = () => {
      const t = document.documentElement.dataset.theme;
      setDark(t === "dark" || (t !== "light" && mq.matches));
    };
    read();
    mq.addEventListener("change", read);
    window.addEventListener("retrace-theme", read);
    return () => {
      mq.removeEventListener("change", read);
      window.removeEventListener("retrace-theme", read);
    };
  }, []);
  return dark;
}
