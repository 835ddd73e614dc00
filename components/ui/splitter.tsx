"use client";
import { useRef } from "react";

/**
 * A drag handle between two panes (role separator, focusable): drag it, or use the arrow
 * keys (16 px a press, 64 with Shift), Enter to collapse or expand the pane, Home to reset
 * it. The handle sits inside the pane it resizes, so the pane is its parent element;
 * `sign` is +1 when moving the handle right (down) grows the pane, -1 when it shrinks it.
 */
export function Splitter({
  label,
  orientation,
  size,
  min,
  max,
  sign,
  collapsed,
  onResize,
  onToggle,
  onReset,
}: {
  label: string;
  /** "vertical": a vertical bar between side-by-side panes */
  orientation: "vertical" | "horizontal";
  /** for assistive technology: the size last set, or the default */
  size: number;
  min: number;
  max: number;
  sign: 1 | -1;
  collapsed: boolean;
  /** the new size, and the handle (to measure what is around the pane) */
  onResize: (px: number, handle: HTMLElement) => void;
  onToggle: () => void;
  onReset: () => void;
}) {
  const drag = useRef<{ start: number; size: number } | null>(null);
  const axis = (e: { clientX: number; clientY: number }) => (orientation === "vertical" ? e.clientX : e.clientY);
  const paneSize = (handle: HTMLElement) => {
    const r = handle.parentElement?.getBoundingClientRect();
    return r ? (orientation === "vertical" ? r.width : r.height) : size;
  };
  return (
    <div
      role="separator"
      aria-label={label}
      aria-orientation={orientation}
      aria-valuenow={Math.round(size)}
      aria-valuemin={min}
      aria-valuemax={max}
      tabIndex={0}
      className={`splitter ${orientation}`}
      data-collapsed={collapsed ? "true" : "false"}
      onPointerDown={(e) => {
        if (collapsed || e.button !== 0) return;
        e.preventDefault();
        e.currentTarget.setPointerCapture(e.pointerId);
        drag.current = { start: axis(e), size: paneSize(e.currentTarget) };
      }}
      onPointerMove={(e) => {
        const d = drag.current;
        if (!d) return;
        onResize(d.size + sign * (axis(e) - d.start), e.currentTarget);
      }}
      onPointerUp={(e) => {
        drag.current = null;
        e.currentTarget.releasePointerCapture(e.pointerId);
      }}
      onDoubleClick={onToggle}
      onKeyDown={(e) => {
        const step = e.shiftKey ? 64 : 16;
        const grow: Record<string, number> =
          orientation === "vertical" ? { ArrowRight: sign, ArrowLeft: -sign } : { ArrowDown: sign, ArrowUp: -sign };
        const dir = grow[e.key];
        if (dir !== undefined && !collapsed) onResize(paneSize(e.currentTarget) + dir * step, e.currentTarget);
        else if (e.key === "Enter") onToggle();
        else if (e.key === "Home") onReset();
        else return;
        // the run page's own keys (arrows step through events) must not see it
        e.preventDefault();
        e.stopPropagation();
      }}
    />
  );
}
