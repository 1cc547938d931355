base:
  '*':
    - lighttpd
    - ops
