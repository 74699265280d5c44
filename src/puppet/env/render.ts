/**
 * A catalog as `puppet catalog compile --render-as json` prints it: Ruby's
 * JSON generator (src/puppet/eval/ruby-json.ts, where the compiler's own
 * catalog writer finds it too).
 */
export { renderRubyJson, rubyFloat } from "../eval/ruby-json.js";
