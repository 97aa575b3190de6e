import { QueryClientProvider } from "@tanstack/react-query";
import { BrowserRouter } from "react-router";

import { queryClient } from "@/api/query-client";

import { AppRoutes } from "./routes";

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <BrowserRouter>
        <AppRoutes />
      </BrowserRouter>
    </QueryClientProvider>
  );
}
