export * from "./api.ts";
export * from "./limits.ts";
export * from "./live-events.ts";
export { isAcceptableComment, isAcceptableName } from "./text.ts";
export * from "./your-data.ts";
