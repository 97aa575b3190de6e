import "./styles/global.css";

import { StrictMode } from "react";
import { createRoot } from "react-dom/client";

import { App } from "./app/provider";

const container = document.getElementById("root");
if (!container) throw new Error("index.html lacks #root");

createRoot(container).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
