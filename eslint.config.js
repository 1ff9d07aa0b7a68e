// ESLint flat config: the components' browser code as ES modules, the Node tests as Node modules.
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["node_modules/", "components/frontend/graph_view/vendor/", ".venv/"] },
  js.configs.recommended,
  {
    files: ["components/**/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.browser } },
    rules: { "no-unused-vars": ["error", { args: "none" }], "no-shadow": "error" },
  },
  {
    files: ["tests/js/**/*.js", "eslint.config.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.node } },
  },
];
