/** The activity feature's public surface for the app layer (the page itself loads lazily). */
export { canReadActivity } from "./lib/access";
