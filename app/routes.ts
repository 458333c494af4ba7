import { index, type RouteConfig, route } from "@react-router/dev/routes";

export default [
  index("routes/home.tsx"),
  route("about", "routes/about.tsx"),
  route("technical", "routes/technical.tsx"),
  route("non-technical", "routes/non-technical.tsx"),
  route("mythology", "routes/mythology.tsx"),
  route("mechfusion-ai", "routes/mechfusion-ai.tsx"),
  route("science", "routes/science.tsx"),
  route("services", "routes/services.tsx"),
  route("privacy", "routes/privacy.tsx"),
  route("terms", "routes/terms.tsx"),
  route("unsubscribe", "routes/unsubscribe.tsx"),
  route("*", "routes/not-found.tsx"),
] satisfies RouteConfig;
