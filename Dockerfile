# The summon command (referee, web page server, bots, accounts) in one image; see compose.yaml.
#   deploy/base-image.sh        # only where debian:bookworm-slim cannot be pulled
#   docker build --network host -t summon .  &&  docker run --rm summon --help
#
# Built from Debian bookworm, like the broker and proxy images (deploy/*.Dockerfile), so
# that a host which cannot reach a registry builds the same thing from debootstrap.
# .dockerignore lets in only what `pip install .` needs.  Two stages: the build stage has
# gcc and Python's headers, builds the wheel (with the Dragon bots' C search core,
# clients/bots/_dragonplay.c, setup.py) and installs it into a venv; the slim stage has
# only python3 and that venv.
ARG BASE=debian:bookworm-slim

FROM ${BASE} AS build
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 python3-venv python3-dev gcc libc6-dev ca-certificates \
    && rm -rf /var/lib/apt/lists/*
# pip checks TLS against the system's CA bundle (with a host's own CAs when
# deploy/base-image.sh copied them in), not only against the certifi copy it carries
ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1
RUN python3 -m venv /opt/summon
COPY . /src
# [postgres]: psycopg for compose's `postgres` profile (a fleet's shared store)
RUN /opt/summon/bin/pip wheel --no-deps --wheel-dir /wheels /src \
    && /opt/summon/bin/pip install "$(ls /wheels/summon-*.whl)[postgres]" \
    && /opt/summon/bin/python -c "import summon.clients.bots._dragonplay"

FROM ${BASE}
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 \
    && rm -rf /var/lib/apt/lists/* \
    # uid/gid 10001 in every image of compose.yaml: the broker's directory (a volume) is
    # written by `summon broker init` here and read by mosquitto in the broker image
    && groupadd --gid 10001 summon \
    && useradd --uid 10001 --gid summon --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin summon \
    # the data directories, owned here: a fresh named volume takes its owner from the image
    # (the referee's store /data, the broker's config and secrets /broker)
    && mkdir -p /data /broker \
    && chown summon:summon /data /broker
COPY --from=build /opt/summon /opt/summon
ENV PATH=/opt/summon/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    SUMMON_DYNSEC_PLUGIN=/usr/local/lib/mosquitto_dynamic_security.so
WORKDIR /data
USER summon
ENTRYPOINT ["summon"]
CMD ["--help"]
