// Files embedded in the compiled binary. `type: "text"` inlines the contents; `type: "file"`
// yields a path (absolute under `bun run`, /$bunfs/root/... inside the binary).
declare module "*.sql" {
  const text: string;
  export default text;
}
declare module "*.css" {
  const path: string;
  export default path;
}
declare module "*.ttf" {
  const path: string;
  export default path;
}
declare module "*.wasm" {
  const path: string;
  export default path;
}
declare module "swagger-ui-dist/swagger-ui-bundle.js" {
  const path: string;
  export default path;
}
declare module "*.jsonl" {
  const text: string;
  export default text;
}
