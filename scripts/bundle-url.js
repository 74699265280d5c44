// Injected by scripts/bundle.js into the CommonJS bundle, where it stands in
// for `import.meta.url`: the URL of the bundle file itself.
import { pathToFileURL } from "node:url";

export const __tendBundleUrl = pathToFileURL(__filename).href;
