a: 1
{% from "lib2.jinja" import x %}
