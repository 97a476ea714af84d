# The summon command (referee, bots, watcher, director) in one image; see compose.yaml.
#   docker build -t summon .  &&  docker run --rm summon --help

# .dockerignore lets in only what `pip install .` needs (pyproject.toml, setup.py, README.md
# if present, the protocol/, referee/ and clients/ packages, and summon/ whose relative
# symlinks point at them; pip follows them into the wheel either way).  Two stages: the
# full python image has the C compiler that builds the Dragon bots' search core
# (clients/bots/_dragonplay.c, setup.py); the slim image only installs the built wheel.
FROM python:3.11 AS build
WORKDIR /src
COPY . /src
RUN pip wheel --no-deps --wheel-dir /wheels /src

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
COPY --from=build /wheels /wheels
RUN pip install /wheels/summon-*.whl \
    && rm -rf /wheels \
    && useradd --system --no-create-home --shell /usr/sbin/nologin summon

WORKDIR /
USER summon
ENTRYPOINT ["summon"]
CMD ["--help"]
