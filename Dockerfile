# The API (serving the built SPA). Used by docker-compose.yml; production images would use
# only requirements.lock and `uvicorn --factory api.main:create_app`.
FROM node:20-bookworm-slim AS web
WORKDIR /src/web
COPY web/package.json web/package-lock.json web/.npmrc ./
RUN npm ci --no-audit --no-fund
COPY openapi.json /src/openapi.json
COPY web/ ./
RUN npm run build

FROM python:3.11-slim-bookworm
WORKDIR /app
COPY requirements.lock requirements-dev.lock ./
RUN pip install --no-cache-dir -r requirements.lock -r requirements-dev.lock
COPY . .
COPY --from=web /src/web/dist ./web/dist
EXPOSE 8000
CMD ["uvicorn", "--factory", "api.main:create_app", "--host", "0.0.0.0", "--port", "8000"]
