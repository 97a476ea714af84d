# The summon command (referee, bots, watcher, director) in one image; see compose.yaml.
#   docker build -t summon .  &&  docker run --rm summon --help
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# .dockerignore lets in only what `pip install .` needs (pyproject.toml, README.md if
# present, the protocol/, referee/ and clients/ packages, and summon/ whose relative
# symlinks point at them; pip follows them into the wheel either way).
WORKDIR /src
COPY . /src
RUN pip install /src \
    && rm -rf /src \
    && useradd --system --no-create-home --shell /usr/sbin/nologin summon

WORKDIR /
USER summon
ENTRYPOINT ["summon"]
CMD ["--help"]
