# Images of the API serving the built SPA.
#
#   docker build .             the production image (the last stage, `runtime`): only
#                              requirements.lock; api/ (not devstack/, the development
#                              stand-ins), migrations/, alembic.ini and web/dist; runs as a non-root user
#                              (python -m api.app.commands.serve: graceful shutdown on SIGTERM) and keeps
#                              working on a read-only root filesystem with /tmp writable.
#                              Migrate with `docker run IMAGE python -m api.app.commands.migrate`.
#   docker build --target dev  the development stack that docker-compose.yml runs
#                              (`python -m devstack`, with requirements-dev.lock).

FROM node:20-bookworm-slim AS web
WORKDIR /src/web
COPY web/package.json web/package-lock.json web/.npmrc ./
RUN npm ci --no-audit --no-fund
COPY openapi.json /src/openapi.json
COPY web/ ./
RUN npm run build

FROM python:3.11-slim-bookworm AS python
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /app
RUN useradd --system --uid 10001 --user-group --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin console
COPY requirements.lock ./
RUN pip install --no-cache-dir -r requirements.lock

FROM python AS dev
# Debian's xmlsec1: the SAML stand-ins sign and check responses with it (pysaml2).
RUN apt-get update && apt-get install -y --no-install-recommends xmlsec1 \
    && rm -rf /var/lib/apt/lists/*
COPY requirements-dev.lock ./
RUN pip install --no-cache-dir -r requirements.lock -r requirements-dev.lock
COPY . .
COPY --from=web /src/web/dist ./web/dist
RUN mkdir .devdata && chown console:console .devdata
USER console
EXPOSE 8000
CMD ["python", "-m", "devstack", "--skip-build", "--host=0.0.0.0", "--port=8000"]

FROM python AS runtime
# The API's code only: devstack/ (the hosted-UI stand-in, the mailbox, ...) is not copied, so
# it cannot even be imported in production (Settings.check refuses DEV_STAND_INS outside
# development anyway, and import-linter keeps api/ from importing it).
COPY api/ ./api/
COPY migrations/ ./migrations/
COPY alembic.ini ./
COPY --from=web /src/web/dist ./web/dist
# Serve the SPA from the API (set WEB_DIST= when a CDN serves it).
ENV WEB_DIST=/app/web/dist
USER console
EXPOSE 8000
CMD ["python", "-m", "api.app.commands.serve", "--host", "0.0.0.0", "--port", "8000"]
