export * from "./summary";
export * from "./kind";
export * from "./run-index";
export * from "./build";
export * from "./layout";
export * from "./from-events";
export * from "./sequence-layout";
