lighttpd:
  settings:
    bind: 127.0.0.1
    port: 8088
    docroot: /srv/brine-example/www
    server_tag: brine-example
    index_html: |
      <!doctype html>
      <title>brine example</title>
      <h1>Served by lighttpd, configured by brine</h1>
  lookup:
    mimetypes:
      .html: text/html
      .txt: text/plain
      .css: text/css
