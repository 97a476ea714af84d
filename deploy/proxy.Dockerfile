# Caddy for compose.yaml: Debian bookworm's caddy 2.6, the TLS-terminating reverse proxy in
# front of the page and both websockets listeners (deploy/Caddyfile says why Caddy).
# curl is for the healthcheck.
#   docker build --network host -f deploy/proxy.Dockerfile -t summon-proxy deploy
ARG BASE=debian:bookworm-slim
FROM ${BASE}
RUN apt-get update \
    && apt-get install -y --no-install-recommends caddy curl ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && mkdir -p /var/lib/caddy/.local/share /var/lib/caddy/.config \
    && chown -R caddy:caddy /var/lib/caddy
COPY Caddyfile /etc/caddy/Caddyfile
# certificates (ACME or Caddy's own) and their keys live in /var/lib/caddy: a volume
ENV XDG_DATA_HOME=/var/lib/caddy/.local/share XDG_CONFIG_HOME=/var/lib/caddy/.config
USER caddy
ENTRYPOINT ["caddy"]
CMD ["run", "--config", "/etc/caddy/Caddyfile", "--adapter", "caddyfile"]
