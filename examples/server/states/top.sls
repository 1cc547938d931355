base:
  '*':
    - lighttpd
    - lighttpd.site
    - ops
